#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import UIKit

    /// Suspending a store with its UIKit app (iOS, iPadOS, Mac Catalyst, tvOS, visionOS).
    extension ListStore {
        /// Suspends the store when the app enters the background and resumes it when the app returns to
        /// the foreground, from `UIApplication.didEnterBackgroundNotification` and
        /// `UIApplication.willEnterForegroundNotification`: the store then holds no lock on its file while
        /// the app is suspended, which iOS would terminate it for (`0xdead10cc`) with the file in an App
        /// Group container. Call it once, when the app starts; it lasts as long as the store. Both
        /// notifications are handled on the main thread, as they are posted: ``suspend()`` interrupts the
        /// call running then (a write under way rolls back and throws) rather than wait for it, and
        /// ``resume()`` reopens the file (a few reads); a resume that fails
        /// leaves the store suspended, and every call then throws why (see ``resume()``).
        ///
        /// Not on watchOS, which has no `UIApplication`: call ``suspend()`` and ``resume()`` yourself there
        /// (from `WKApplicationDelegate`, or SwiftUI's `scenePhase`), as anywhere you prefer to.
        @MainActor
        public func suspendsWithApplication() {
            let center = NotificationCenter.default
            suspension.applicationObservers.withLock { observers in
                guard observers.isEmpty else { return }
                observers = [
                    center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { [weak root] _ in
                        root?.suspend()
                    },
                    center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { [weak root] _ in
                        try? root?.resume()
                    },
                ]
            }
        }
    }
#endif
