// swift-tools-version:6.2
// A separate package so the normal build never links libFuzzer. Built by scripts/fuzz.sh.
import PackageDescription

let package = Package(
    name: "gbgbridge-fuzz",
    dependencies: [
        .package(path: "..")
    ],
    targets: [
        .executableTarget(
            name: "GBGBridgeFuzz",
            dependencies: [.product(name: "GBGBridge", package: rootPackageIdentity)],
            path: "Sources/GBGBridgeFuzz"
        ),
        // One binary for every chip file parser; CHIP_FUZZ_TARGET picks the parser.
        .executableTarget(
            name: "EMRTDFuzz",
            dependencies: [.product(name: "EMRTD", package: rootPackageIdentity)],
            path: "Sources/EMRTDFuzz"
        ),
        // MRZReader: OCR text to a checked machine-readable zone.
        .executableTarget(
            name: "MRZReaderFuzz",
            dependencies: [.product(name: "MRZReader", package: rootPackageIdentity)],
            path: "Sources/MRZReaderFuzz"
        ),
        // MRZScanner: a photo searched for machine-readable zones and cut into crops (no OCR).
        .executableTarget(
            name: "MRZImageFuzz",
            dependencies: [.product(name: "MRZScanner", package: rootPackageIdentity)],
            path: "Sources/MRZImageFuzz"
        ),
        // OCREngine: a Tesseract model file's table of contents and component starts, checked
        // before Tesseract may load it (TrainedDataLayout).
        .executableTarget(
            name: "OCRModelFuzz",
            dependencies: [.product(name: "MRZScanner", package: rootPackageIdentity)],
            path: "Sources/OCRModelFuzz"
        ),
    ]
)

/// SwiftPM names a path dependency after its directory, which depends on the checkout.
var rootPackageIdentity: String {
    let directory = #filePath.split(separator: "/").dropLast(2).last.map(String.init) ?? "gbgbridge-linux"
    return directory.lowercased()
}
