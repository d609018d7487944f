// swift-tools-version:6.0
import PackageDescription

/// The numbered schema files in `Migrations/`, compiled into the binary. A new file is added here and in
/// `Migrations/MigrationFiles.swift`; a test fails when a file in the folder is missing from either.
let migrationFiles = [
    "0001_create_lists.sql",
    "0002_row_base_and_counts.sql",
    "0003_change_log.sql",
    "0004_file_identity.sql",
    "0005_change_log_hardening.sql",
    "0006_change_log_record_v2.sql",
    "0007_sparse_positions.sql",
    "0008_lists.sql",
    "0009_history.sql",
    "0010_payload_indexes.sql",
    "0011_payload_values_without_row_key.sql",
    "0012_section_counts.sql",
    "0013_title_index_notes.sql",
    "0014_replica_identity.sql",
    "0015_merge_registers.sql",
    "0016_merge_cursors.sql",
]

/// A release build of `liststore` on Linux is one fully static executable: the Swift runtime, Foundation,
/// SQLite, ncurses and glibc linked in, nothing for the dynamic loader to load, relocate or look up when it
/// starts — which took most of a short command's time (Docs/CLI.md, "Building a fast liststore"). Foundation's parts are named
/// because a build without `--static-swift-stdlib` compiles against the shared Foundation, which names only
/// itself. `LISTSTORE_DYNAMIC_EXECUTABLE=1` links it dynamically instead, for a system without static
/// SQLite and ncurses libraries (`libsqlite3.a`, `libncursesw.a`, `libtinfo.a`).
let staticExecutable: [LinkerSetting] =
    Context.environment["LISTSTORE_DYNAMIC_EXECUTABLE"] == "1"
    ? []
    : [
        .unsafeFlags(
            [
                "-static-executable", "-ltinfo", "-lFoundationEssentials", "-lFoundationInternationalization", "-lCoreFoundation", "-l_FoundationICU",
                "-lswiftSynchronization", "-l_FoundationCShims", "-l_FoundationCollections", "-lstdc++", "-lm",
            ], .when(platforms: [.linux], configuration: .release))
    ]

let package = Package(
    name: "ListStore",
    // The versions SwiftUI's @Observable needs, which apps showing a store target anyway; the library uses
    // no API newer than these (PlatformDeclarationTests checks), and their SQLite (3.39.5 and newer) has
    // every feature it uses (VersionsAndPlatforms.md, "SQLite": 3.38.0 at least).
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "ListStore", targets: ["ListStore"]),
        .executable(name: "liststore", targets: ["liststore"]),
        .executable(name: "liststore-bench", targets: ["liststore-bench"]),
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
            resources: migrationFiles.map { .embedInCode($0) }
        ),
        .target(name: "ListStore", dependencies: ["SQLiteLayer", "ListStoreMigrations"]),
        // ncurses for `liststore ui` (wide-character build: Debian's libncurses-dev on Linux, the SDK's on macOS).
        .target(
            name: "CNcurses",
            linkerSettings: [
                .linkedLibrary("ncursesw", .when(platforms: [.linux])),
                .linkedLibrary("ncurses", .when(platforms: [.macOS])),
            ]
        ),
        .target(
            name: "ListStoreCLI",
            dependencies: [
                "ListStore",
                .target(name: "CNcurses", condition: .when(platforms: [.linux, .macOS])),
            ]),
        .executableTarget(name: "liststore", dependencies: ["ListStoreCLI"], linkerSettings: staticExecutable),
        .target(name: "CBaseline", linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(name: "liststore-bench", dependencies: ["ListStore", "SQLiteLayer", "CBaseline", "StoreShorthands"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Tests and the benchmark only: one edit or one read as its own transaction, in one line.
        .target(name: "StoreShorthands", dependencies: ["ListStore"], path: "Tests/StoreShorthands"),
        // Tests only: a VFS over the default one that records every write, truncation and sync of a folder's
        // files, for the crash-state tests (Tests/ListStoreTests/CrashStates).
        .target(name: "CrashRecorder", dependencies: ["CSQLite"], path: "Tests/CrashRecorder"),
        .testTarget(name: "SQLiteLayerTests", dependencies: ["SQLiteLayer", "TestSupport"]),
        .testTarget(name: "ListStoreTests", dependencies: ["ListStore", "ListStoreMigrations", "SQLiteLayer", "TestSupport", "CrashRecorder", "StoreShorthands"]),
        .testTarget(name: "ListStoreCLITests", dependencies: ["ListStoreCLI", "ListStore", "SQLiteLayer", "TestSupport", "StoreShorthands"]),
    ],
    swiftLanguageModes: [.v6]
)
