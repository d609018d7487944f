import Foundation
import Testing

/// The library must build for Apple platforms, which cannot be built here: the package declares the
/// versions its APIs need, and the library targets use no Linux-only API.
@Suite struct PlatformDeclarationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func sources(_ folder: String) throws -> [(name: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.map { ($0, try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func thePackageDeclaresTheVersionsItsAPIsNeed() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let library = try Self.sources("Sources/ListStore") + Self.sources("Sources/SQLiteLayer")
        #expect(!library.isEmpty)
        // Mutex and Atomic (Synchronization) and String(validating:as:) first shipped with these versions.
        let usesSwift6Runtime = library.contains { $0.text.contains("Mutex") || $0.text.contains("Atomic<") || $0.text.contains("String(validating:") }
        #expect(usesSwift6Runtime, "if the library stops needing them, the platforms could be lowered")
        for platform in [".macOS(.v15)", ".iOS(.v18)", ".tvOS(.v18)", ".watchOS(.v11)", ".visionOS(.v2)"] {
            #expect(manifest.contains(platform), "Package.swift does not declare \(platform)")
        }
    }

    @Test func theLibraryTargetsUseNoLinuxOnlyAPI() throws {
        let library = try Self.sources("Sources/ListStore") + Self.sources("Sources/SQLiteLayer")
        for (name, text) in library {
            for linuxOnly in ["import Glibc", "Glibc.", "import Musl", "/proc/", "posix_spawn", "epoll", "inotify"] {
                #expect(!text.contains(linuxOnly), "\(name) uses \(linuxOnly), which does not exist on Apple platforms")
            }
        }
        // Elsewhere (CLI, benchmark), Linux-only calls sit behind #if.
        for (name, text) in try Self.sources("Sources/ListStoreCLI") + Self.sources("Sources/liststore-bench") where text.contains("Glibc.") || text.contains("/proc/") {
            #expect(text.contains("#if"), "\(name) uses a Linux-only API without #if")
        }
    }
}
