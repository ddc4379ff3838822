// swift-tools-version:6.0
import PackageDescription

// `make fuzz` sets WAYPOST_FUZZ (in its own build folder): Waypost's own modules are built with
// libFuzzer's coverage and AddressSanitizer, and the fuzz targets under Fuzz/ are added.
// Dependencies stay uninstrumented: the fuzzers explore Waypost's code, not SwiftNIO's.
let fuzzing = Context.environment["WAYPOST_FUZZ"] != nil
let instrumented: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []

let package = Package(
    name: "Waypost",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "waypost", targets: ["waypost"]),
        .library(name: "Geo", targets: ["Geo"]),
        .library(name: "SimulatedTime", targets: ["SimulatedTime"]),
        .library(name: "Tracks", targets: ["Tracks"]),
        .library(name: "LocationEvents", targets: ["LocationEvents"]),
        .library(name: "LocationSimulation", targets: ["LocationSimulation"]),
        .library(name: "WorldFiles", targets: ["WorldFiles"]),
        .library(name: "SocialAPI", targets: ["SocialAPI"]),
        .library(name: "SocialEmulator", targets: ["SocialEmulator"]),
        .library(name: "Store", targets: ["Store"]),
        .library(name: "CheckinEngine", targets: ["CheckinEngine"]),
        .library(name: "Scenarios", targets: ["Scenarios"]),
        .library(name: "RunReports", targets: ["RunReports"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // System libraries. Debian/Ubuntu: `make deps` installs the -dev packages.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // Prefetch hints for the simulation's crowd windows (Swift has no prefetch of its own).
        .target(name: "CMemoryHints"),

        .target(name: "Geo", swiftSettings: instrumented),
        // Small pieces several modules need: the calendar arithmetic, the seeded generator.
        .target(name: "WaypostSupport", swiftSettings: instrumented),
        // Time, one shape for every part of a run: the instant, the simulated clock (moved only
        // when told), the wall clock at the edge, and pacing against it.
        .target(
            name: "SimulatedTime", dependencies: [.product(name: "Atomics", package: "swift-atomics")],
            swiftSettings: instrumented),
        // Configuration files read strictly (YAML/JSON): one node type, one error type.
        .target(
            name: "ConfigFiles",
            dependencies: ["SimulatedTime", "WaypostSupport", .product(name: "Yams", package: "Yams")],
            swiftSettings: instrumented),
        .target(
            name: "Tracks",
            dependencies: [
                "Geo", "CLibXML2", "SimulatedTime", "WaypostSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: instrumented
        ),
        // The output contract: the events a location manager reports, the event stream's text and
        // JSONL encoder, and the `post` line. The engine and the reports speak it, not the simulator.
        .target(
            name: "LocationEvents", dependencies: ["Geo", "SimulatedTime", "WaypostSupport"],
            swiftSettings: instrumented),
        .target(
            name: "LocationSimulation",
            dependencies: [
                "Geo", "Tracks", "LocationEvents", "SimulatedTime", "WaypostSupport", "CMemoryHints",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: instrumented
        ),
        // The files that describe a run's world, read strictly: regions (YAML, JSON, GeoJSON), beacons,
        // check-in rules, privacy profiles and credentials. The engine takes values.
        .target(
            name: "WorldFiles",
            dependencies: [
                "CheckinEngine", "ConfigFiles", "Geo", "LocationEvents", "LocationSimulation", "SocialAPI",
            ],
            swiftSettings: instrumented
        ),
        .target(
            name: "SocialAPI",
            dependencies: [
                "SimulatedTime", "WaypostSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: instrumented
        ),
        .target(
            name: "SocialEmulator",
            dependencies: [
                "SocialAPI", "Geo", "SimulatedTime", "WaypostSupport", "ConfigFiles",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: instrumented
        ),
        .target(name: "Store", dependencies: ["CSQLite", "SimulatedTime"], swiftSettings: instrumented),
        .target(
            name: "CheckinEngine",
            dependencies: [
                "Geo", "LocationEvents", "SocialAPI", "Store", "SimulatedTime", "WaypostSupport",
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: instrumented
        ),
        // One run: routes read and timed, devices launched, events through the engine to the
        // networks. `waypost replay` and `waypost test` are front ends over it.
        .target(
            name: "Runs",
            dependencies: [
                "Tracks", "LocationEvents", "LocationSimulation", "SimulatedTime", "SocialAPI", "Store",
                "CheckinEngine",
            ],
            swiftSettings: instrumented
        ),
        .target(
            name: "Scenarios",
            dependencies: [
                "Geo", "Tracks", "LocationEvents", "LocationSimulation", "SocialAPI", "SocialEmulator", "Store",
                "CheckinEngine", "Runs", "RunReports", "ConfigFiles", "WorldFiles", "SimulatedTime", "WaypostSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: instrumented
        ),
        .target(
            name: "RunReports", dependencies: ["Geo", "Store", "CheckinEngine", "SimulatedTime", "WaypostSupport"]),
        .executableTarget(
            name: "waypost",
            dependencies: [
                "Geo", "Tracks", "LocationEvents", "LocationSimulation", "SocialAPI", "SocialEmulator", "Store",
                "CheckinEngine", "Runs", "Scenarios", "RunReports", "ConfigFiles", "WorldFiles", "SimulatedTime",
                "WaypostSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // Benchmarks live apart from the tests and never gate CI (`make bench`).
        .executableTarget(
            name: "waypost-bench",
            dependencies: [
                "Geo", "Tracks", "LocationEvents", "LocationSimulation", "SocialAPI", "SocialEmulator", "Store",
                "CheckinEngine", "Scenarios", "SimulatedTime",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/WaypostBench"
        ),

        // A runnable example: an app's check-in logic written against the seam, tested on the
        // simulated CLMonitor (`swift test --filter CafeCheckinsTests`).
        .target(
            name: "CafeCheckins", dependencies: ["LocationEvents", "LocationSimulation", "SimulatedTime"],
            path: "Examples/CafeCheckins/Sources"),
        .testTarget(
            name: "CafeCheckinsTests",
            dependencies: ["CafeCheckins", "LocationSimulation", "SimulatedTime", "Geo", "Tracks"],
            path: "Examples/CafeCheckins/Tests"),

        // Locates ../shared/corpus for the tests; never shipped.
        .target(name: "TestSupport", dependencies: ["SimulatedTime"], path: "Tests/TestSupport"),
        .testTarget(name: "GeoTests", dependencies: ["Geo", "TestSupport"]),
        .testTarget(name: "SimulatedTimeTests", dependencies: ["SimulatedTime"]),
        .testTarget(
            name: "TracksTests",
            dependencies: [
                "Tracks", "Geo", "SimulatedTime", "WaypostSupport", "TestSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .testTarget(
            name: "LocationSimulationTests",
            dependencies: [
                "LocationSimulation", "LocationEvents", "SimulatedTime", "Tracks", "Geo", "ConfigFiles", "TestSupport",
                "WaypostSupport",
            ]),
        .testTarget(
            name: "WorldFilesTests",
            dependencies: ["WorldFiles", "CheckinEngine", "SocialAPI", "LocationEvents", "ConfigFiles", "TestSupport"]),
        .testTarget(
            name: "LocationEventsTests", dependencies: ["LocationEvents", "Geo", "SimulatedTime", "WaypostSupport"]),
        .testTarget(
            name: "SocialAPITests",
            dependencies: [
                "SocialAPI", "SimulatedTime", "TestSupport", "WaypostSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(name: "WaypostSupportTests", dependencies: ["WaypostSupport"]),
        .testTarget(
            name: "SocialEmulatorTests",
            dependencies: [
                "SocialEmulator", "SocialAPI", "SimulatedTime", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(name: "StoreTests", dependencies: ["Store", "SimulatedTime", "TestSupport"]),
        .testTarget(
            name: "CheckinEngineTests",
            dependencies: [
                "CheckinEngine", "SocialEmulator", "SocialAPI", "Store", "LocationEvents", "Geo", "ConfigFiles",
                "SimulatedTime", "TestSupport", "WaypostSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "ScenariosTests",
            dependencies: [
                "Scenarios", "Runs", "CheckinEngine", "SocialEmulator", "LocationSimulation", "ConfigFiles", "Store",
                "SimulatedTime", "Tracks", "TestSupport", "WaypostSupport", .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(
            name: "RunReportsTests",
            dependencies: ["RunReports", "Store", "CheckinEngine", "Geo", "SimulatedTime", "TestSupport"]),
        .testTarget(
            name: "WaypostCLITests",
            dependencies: [
                "waypost", "SocialEmulator", "SocialAPI", "SimulatedTime", "TestSupport", "LocationEvents",
                "LocationSimulation", "Tracks", "WorldFiles", "WaypostSupport",
            ]),
    ]
)

// libFuzzer targets (`make fuzz`): each feeds its input to one reader or handler. libFuzzer's
// driver is linked without its own main (scripts/fuzz.sh passes the archive); FuzzDriver starts it.
if fuzzing {
    let fuzzLinking: [LinkerSetting] = [.unsafeFlags(["-sanitize=address"])]
    package.targets += [
        .target(name: "FuzzDriver", path: "Fuzz/FuzzDriver", swiftSettings: instrumented),
        .executableTarget(
            name: "fuzz-tracks", dependencies: ["FuzzDriver", "SimulatedTime", "Tracks"], path: "Fuzz/Tracks",
            swiftSettings: instrumented, linkerSettings: fuzzLinking),
        .executableTarget(
            name: "fuzz-config", dependencies: ["FuzzDriver", "WorldFiles", "CheckinEngine", "Scenarios"],
            path: "Fuzz/Config", swiftSettings: instrumented, linkerSettings: fuzzLinking),
        .executableTarget(
            name: "fuzz-yaml", dependencies: ["FuzzDriver", "ConfigFiles"], path: "Fuzz/YAML",
            swiftSettings: instrumented, linkerSettings: fuzzLinking),
        .executableTarget(
            name: "fuzz-emulator", dependencies: ["FuzzDriver", "SimulatedTime", "SocialEmulator"],
            path: "Fuzz/Emulator",
            swiftSettings: instrumented, linkerSettings: fuzzLinking),
        .executableTarget(
            name: "fuzz-oauth", dependencies: ["FuzzDriver", "SimulatedTime", "SocialEmulator", "SocialAPI"],
            path: "Fuzz/OAuth",
            swiftSettings: instrumented, linkerSettings: fuzzLinking),
        .executableTarget(
            name: "fuzz-answers", dependencies: ["FuzzDriver", "SocialAPI"], path: "Fuzz/Answers",
            swiftSettings: instrumented, linkerSettings: fuzzLinking),
    ]
}
