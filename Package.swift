// swift-tools-version:6.0
import Foundation
import PackageDescription

/// Every numbered `.sql` file in `Migrations/` is compiled into the binary.
/// `MigrationFiles.swift` registers them in order; a test checks that none is missing.
let migrationFiles: [Resource] = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Migrations")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".sql") }.sorted().map { .embedInCode($0) }
}()

let package = Package(
    name: "ListStore",
    products: [
        .library(name: "ListStore", targets: ["ListStore"]),
        .executable(name: "liststore", targets: ["liststore"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "SQLiteLayer", dependencies: ["CSQLite"]),
        .target(
            name: "ListStoreMigrations",
            path: "Migrations",
            sources: ["MigrationFiles.swift"],
            resources: migrationFiles
        ),
        .target(name: "ListStore", dependencies: ["SQLiteLayer", "ListStoreMigrations"]),
        .target(name: "ListStoreCLI", dependencies: ["ListStore"]),
        .executableTarget(name: "liststore", dependencies: ["ListStoreCLI"]),
        .testTarget(name: "SQLiteLayerTests", dependencies: ["SQLiteLayer"]),
        .testTarget(name: "ListStoreTests", dependencies: ["ListStore", "ListStoreMigrations", "SQLiteLayer"]),
        .testTarget(name: "ListStoreCLITests", dependencies: ["ListStoreCLI", "ListStore"]),
    ],
    swiftLanguageModes: [.v6]
)
