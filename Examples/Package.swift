// swift-tools-version:6.2
import PackageDescription

// Two programs that use GBG Bridge for Linux the way another project does: by its published
// location and a version range. GBGBRIDGE_PACKAGE_URL names another git repository holding the
// same tags (the test suite resolves against a tagged scratch clone of this tree).
let gbgbridgeURL = Context.environment["GBGBRIDGE_PACKAGE_URL"] ?? "https://github.com/gbgbridge/gbgbridge-linux.git"

let package = Package(
    name: "gbgbridge-examples",
    dependencies: [
        // Before 1.0.0 a minor release may change the API, so stay within 0.2.x.
        .package(url: gbgbridgeURL, .upToNextMinor(from: "0.2.0"))
    ],
    targets: [
        // The protocol core alone: no GTK, no WebKit, no display.
        .executableTarget(
            name: "headless-core",
            dependencies: [.product(name: "GBGBridge", package: "gbgbridge-linux")]
        ),
        // A journey in a window with the capture window behind it.
        .executableTarget(
            name: "journey-window",
            dependencies: [
                .product(name: "GBGBridge", package: "gbgbridge-linux"),
                .product(name: "GBGBridgeGTK", package: "gbgbridge-linux"),
                .product(name: "GBGBridgeToolkit", package: "gbgbridge-linux"),
                .product(name: "GBGBridgeCapture", package: "gbgbridge-linux"),
            ]
        ),
    ]
)
