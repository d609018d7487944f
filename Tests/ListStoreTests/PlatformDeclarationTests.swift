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

    /// APIs that first shipped after the declared versions (iOS 17, macOS 14, tvOS 17, watchOS 10,
    /// visionOS 1), with the versions that brought them. Every target builds for Apple platforms at the
    /// package's deployment targets, so none of them may appear outside `#if`/`@available` guards.
    static let newerAPIs: [(spelling: String, since: String)] = [
        ("import Synchronization", "iOS 18 / macOS 15 (Mutex, Atomic)"),
        ("Mutex<", "iOS 18 / macOS 15"),
        ("Mutex(", "iOS 18 / macOS 15"),
        ("Atomic<", "iOS 18 / macOS 15"),
        ("String(validating:", "iOS 18 / macOS 15"),
        ("Span<", "iOS 26 / macOS 26 (or back-deployed with Swift 6.2 only)"),
        ("RawSpan", "iOS 26 / macOS 26"),
        ("InlineArray", "iOS 26 / macOS 26"),
        ("UTF8Span", "iOS 26 / macOS 26"),
        ("Task.immediate", "iOS 26 / macOS 26"),
        ("Observations(", "iOS 26 / macOS 26"),
        ("Task(name:", "iOS 26 / macOS 26"),
    ]

    @Test func thePackageDeclaresTheVersionsItsAPIsNeed() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for platform in [".macOS(.v14)", ".iOS(.v17)", ".tvOS(.v17)", ".watchOS(.v10)", ".visionOS(.v1)"] {
            #expect(manifest.contains(platform), "Package.swift does not declare \(platform)")
        }
        let example = try String(contentsOf: Self.root.appendingPathComponent("Examples/TableViewApp/Package.swift"), encoding: .utf8)
        #expect(example.contains(".iOS(.v17)") && example.contains(".macOS(.v14)"), "the example app should build at the library's deployment targets")
        var everything: [(name: String, text: String)] = []
        for folder in ["Sources", "Tests", "Examples/TableViewApp/Sources"] { everything += try Self.sources(folder).map { ("\(folder)/\($0.name)", $0.text) } }
        #expect(everything.count > 50)
        for (name, text) in everything where !name.hasSuffix("PlatformDeclarationTests.swift") {
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            for api in Self.newerAPIs {
                #expect(!code.contains(api.spelling), "\(name) uses \(api.spelling), which needs \(api.since): use ListStore's Locked or String(strictUTF8:) instead")
            }
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
