// swift-tools-version:6.0
import PackageDescription

/// An app's view of ListStore: a separate package that depends on it by path, as an app would, and
/// compiles (and runs) the examples README.md and the DocC articles show. `.ci/run` builds and runs it.
let package = Package(
    name: "TableViewApp",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(name: "ListStore", path: "../..")],
    targets: [
        .executableTarget(name: "TableViewApp", dependencies: [.product(name: "ListStore", package: "ListStore")]),
    ],
    swiftLanguageModes: [.v6]
)
