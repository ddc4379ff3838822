// swift-tools-version:6.0
// A package of an app's own, using Waypost as a library by path: what docs' "Using Waypost as a
// library" article shows, built and tested by Waypost's `make test`, so it sees only the public API.
import Foundation
import PackageDescription

// A path dependency is named after its folder: the checkout's, whatever it was cloned as.
let waypost = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardizedFileURL
let name = waypost.lastPathComponent

let package = Package(
    name: "LibraryQuickstart",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(path: waypost.path)],
    targets: [
        .testTarget(
            name: "CafeArrivalTests",
            dependencies: [
                .product(name: "LocationSimulation", package: name),
                .product(name: "LocationEvents", package: name),
                .product(name: "Tracks", package: name),
                .product(name: "Geo", package: name),
            ])
    ]
)
