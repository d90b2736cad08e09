// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "gbgbridge-linux",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "GBGBridge", targets: ["GBGBridge"]),
        .library(name: "GBGBridgeGTK", targets: ["GBGBridgeGTK"]),
        .library(name: "GBGBridgeToolkit", targets: ["GBGBridgeToolkit"]),
        .library(name: "GBGBridgeCapabilities", targets: ["GBGBridgeCapabilities"]),
        .library(name: "BlockingWork", targets: ["BlockingWork"]),
        .library(name: "VideoFrame", targets: ["VideoFrame"]),
        .library(name: "V4L2Capture", targets: ["V4L2Capture"]),
        .library(name: "PipeWireCapture", targets: ["PipeWireCapture"]),
        .library(name: "GBGBridgeCapture", targets: ["GBGBridgeCapture"]),
        .library(name: "Cameras", targets: ["Cameras"]),
        .library(name: "PCSCReader", targets: ["PCSCReader"]),
        .library(name: "CardReaders", targets: ["CardReaders"]),
        .library(name: "EMRTD", targets: ["EMRTD"]),
        .library(name: "GBGBridgeNFC", targets: ["GBGBridgeNFC"]),
        .library(name: "MRZReader", targets: ["MRZReader"]),
        .library(name: "MRZScanner", targets: ["MRZScanner"]),
        .library(name: "GBGBridgeBarcode", targets: ["GBGBridgeBarcode"]),
        .executable(name: "gbgbridge-shell", targets: ["gbgbridge-shell"]),
    ],
    // Ranges, so an application that embeds the libraries resolves together with its own
    // dependencies; the .deb is built with the exact versions in packaging/resolved-versions.txt.
    // swift-crypto 4 builds on FoundationEssentials where it exists (3.x imports Foundation, whose ICU
    // data would triple the shipped program; see docs/packaging.md).
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // Protocol core: no GTK, no WebKit, no V4L2.
        .target(name: "GBGBridge", swiftSettings: strict),
        .target(name: "GBGBridgeTestSupport", dependencies: ["GBGBridge"], swiftSettings: strict),
        // Test helpers that need GTK (kept apart so the core's tests build without it).
        .target(name: "GBGBridgeGTKTestSupport", dependencies: ["CWebKitGTK"], swiftSettings: strict),

        // Blocking calls off Swift's concurrency workers: one pool, dedicated threads for lifelong loops, one
        // timeout and one resume-once helper.
        .target(name: "BlockingWork", swiftSettings: strict),
        // The RGB frame every camera route delivers and the capture and chip windows draw.
        .target(name: "VideoFrame", swiftSettings: strict),

        // Translations of user-facing text (glibc gettext).
        .systemLibrary(name: "CGettext"),
        .target(name: "GBGBridgeLocalization", dependencies: ["CGettext"], swiftSettings: strict),

        // GTK 3 and WebKitGTK 4.1.
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev", "libgtk-3-dev"])]
        ),
        // The toolkit layer every window of the app stands on: checked GObject casts, signals, the
        // dialog scaffold and questions, accessibility, image encoding, the GLib main loop. No protocol.
        .target(
            name: "GBGBridgeToolkit", dependencies: ["CWebKitGTK", "PNGEncoding", "VideoFrame"],
            swiftSettings: strict),
        // What a capability is to the app (`HostCapability`), the run's capabilities and their shared
        // store. Capability modules depend on this, not on the journey window.
        .target(
            name: "GBGBridgeCapabilities", dependencies: ["GBGBridge", "CWebKitGTK"], swiftSettings: strict),
        // The journey window and the WebKitGTK transport.
        .target(
            name: "GBGBridgeGTK",
            dependencies: [
                "GBGBridge", "GBGBridgeToolkit", "GBGBridgeCapabilities", "GBGBridgeLocalization", "CWebKitGTK",
                "BlockingWork",
            ],
            swiftSettings: strict),
        // Lossless PNG for captured frames, fast enough for the answer; zlib for its checksums.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "PNGEncoding", dependencies: ["CZlib"],
            swiftSettings: strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]),

        // Cameras.
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .target(name: "V4L2Capture", dependencies: ["CV4L2", "BlockingWork"], swiftSettings: strict),
        // PipeWire cameras through GStreamer (pipewiresrc, appsink, the PipeWire device provider). No GUI.
        .systemLibrary(
            name: "CGStreamer", pkgConfig: "gstreamer-video-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .target(
            name: "PipeWireCapture", dependencies: ["CGStreamer", "BlockingWork", "VideoFrame"], swiftSettings: strict),
        // Faces and eyes in selfie frames: OpenCV's cascade classifiers (Debian's libopencv-objdetect, the
        // cascades from opencv-data) behind a plain C interface. OpenCV 4.6 ships no pkg-config file
        // without the whole libopencv-dev, so the libraries are named here, and its headers are reached
        // through opencv/opencv2, a link to Debian's /usr/include/opencv4/opencv2 (no unsafe flags, so
        // the package can still be depended on by version).
        .target(
            name: "CFaceDetection",
            exclude: ["opencv"],
            cxxSettings: [.headerSearchPath("opencv")],
            linkerSettings: [
                .linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
            ]),
        // The camera service beneath the capabilities that use a camera: frame sources (V4L2, PipeWire,
        // synthetic), the camera choice and remembered preference, diagnosis, names. No GUI.
        .target(
            name: "Cameras",
            dependencies: ["V4L2Capture", "PipeWireCapture", "GBGBridgeLocalization", "BlockingWork", "VideoFrame"],
            swiftSettings: strict),
        .target(
            name: "GBGBridgeCapture",
            dependencies: [
                "Cameras",
                "GBGBridge", "GBGBridgeToolkit", "GBGBridgeCapabilities", "GBGBridgeLocalization", "CWebKitGTK",
                "V4L2Capture", "PipeWireCapture",
                "MRZScanner", "MRZReader", "OCREngine", "BlockingWork", "VideoFrame", "CFaceDetection",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),

        // Smart-card readers through PC/SC (pcsc-lite), with no GUI.
        .systemLibrary(name: "CPCSC", pkgConfig: "libpcsclite", providers: [.apt(["libpcsclite-dev"])]),
        .target(name: "PCSCReader", dependencies: ["CPCSC"], swiftSettings: strict),
        // Card readers beneath the capabilities that use them: which reader (`ReaderChoice`), readers
        // coming and going (`ReaderMonitor`), one owner per reader (`CardReaderClaims`). No GUI.
        .target(name: "CardReaders", dependencies: ["PCSCReader", "BlockingWork"], swiftSettings: strict),

        // Travel-document chips (ICAO Doc 9303): BAC, secure messaging, data groups, passive
        // authentication; cryptography from OpenSSL's libcrypto. No GUI, no PC/SC.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "EMRTD", dependencies: ["COpenSSL", "MRZReader"], swiftSettings: strict),

        // Machine-readable zones: the one parser of zone text and its check digit (used by the chip
        // stack too), and zones read from OCR text: confirmed repairs, voting.
        .target(name: "MRZReader", swiftSettings: strict),

        // Text recognition of machine-readable zones: Tesseract's C API with an OCR-B model built
        // from Debian's fonts-ocr-b (scripts/build-ocrb-model.sh). No GUI.
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .target(name: "OCREngine", dependencies: ["CTesseract", "BlockingWork"], swiftSettings: strict),
        // The MRZ line reader's network, run by OpenCV's dnn module (Debian's libopencv-dnn).
        .target(
            name: "CLineRecognizer",
            exclude: ["opencv"],
            cxxSettings: [.headerSearchPath("opencv")],
            linkerSettings: [.linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_core")]),
        // Machine-readable zones found and read in photos: zone location, crops, OCR, checks.
        // Optimised in debug builds too: its pixel loops are 20 to 50 times slower unoptimised, and a
        // still photo is read within a time budget.
        .target(
            name: "MRZScanner", dependencies: ["MRZReader", "OCREngine", "CLineRecognizer", "BlockingWork"],
            swiftSettings: strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]),

        // The nfc.read capability and its window; JPEG 2000 faces decoded with OpenJPEG.
        .systemLibrary(name: "COpenJPEG", pkgConfig: "libopenjp2", providers: [.apt(["libopenjp2-7-dev"])]),
        .target(
            name: "GBGBridgeNFC",
            dependencies: [
                "GBGBridge", "GBGBridgeToolkit", "GBGBridgeCapabilities", "GBGBridgeLocalization", "CWebKitGTK",
                "PCSCReader", "CardReaders",
                "EMRTD", "COpenJPEG", "MRZReader", "BlockingWork", "VideoFrame",
            ],
            swiftSettings: strict
        ),

        // The barcode.read capability: PDF417 and QR codes read from a camera of the Cameras service with
        // zxing-cpp (Debian's libzxing-dev) behind a plain C interface; a third capability that needs no other
        // capability's module.
        .target(name: "CBarcodeReader", linkerSettings: [.linkedLibrary("ZXing")]),
        .target(
            name: "GBGBridgeBarcode",
            dependencies: [
                "Cameras", "CBarcodeReader", "GBGBridge", "GBGBridgeToolkit", "GBGBridgeCapabilities",
                "GBGBridgeLocalization", "CWebKitGTK", "BlockingWork", "VideoFrame",
            ],
            swiftSettings: strict),

        // The desktop app.
        .executableTarget(
            name: "gbgbridge-shell",
            dependencies: [
                "GBGBridge", "GBGBridgeGTK", "GBGBridgeToolkit", "GBGBridgeCapabilities", "GBGBridgeLocalization",
                "CWebKitGTK",
                "GBGBridgeCapture", "Cameras", "GBGBridgeNFC", "CardReaders", "EMRTD", "BlockingWork",
                "GBGBridgeBarcode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),

        .executableTarget(
            name: "gbgbridge-capture-bench",
            dependencies: [
                "GBGBridgeCapture", "Cameras", "GBGBridge", "GBGBridgeGTK", "GBGBridgeToolkit", "GBGBridgeCapabilities",
                "CWebKitGTK", "VideoFrame",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/CaptureBenchmarks",
            swiftSettings: strict
        ),

        .executableTarget(
            name: "gbgbridge-barcode-bench", dependencies: ["GBGBridgeBarcode", "VideoFrame"],
            path: "Benchmarks/BarcodeBenchmarks", swiftSettings: strict),

        .executableTarget(
            name: "gbgbridge-selfie-bench", dependencies: ["GBGBridgeCapture", "VideoFrame"],
            path: "Benchmarks/SelfieBenchmarks", swiftSettings: strict),

        .executableTarget(
            name: "gbgbridge-nfc-bench", dependencies: ["EMRTD", "PCSCReader"], path: "Benchmarks/NFCBenchmarks",
            swiftSettings: strict),

        .executableTarget(
            name: "gbgbridge-core-bench", dependencies: ["GBGBridge"], path: "Benchmarks/CoreBenchmarks",
            swiftSettings: strict),

        .executableTarget(
            name: "gbgbridge-mrz-bench", dependencies: ["MRZScanner", "MRZReader", "OCREngine", "CTesseract"],
            path: "Benchmarks/MRZBenchmarks", swiftSettings: strict),

        .executableTarget(
            name: "gbgbridge-face-bench", dependencies: ["GBGBridgeNFC", "EMRTD"], path: "Benchmarks/FaceMemory",
            swiftSettings: strict),

        .testTarget(name: "GBGBridgeTests", dependencies: ["GBGBridge", "GBGBridgeTestSupport"]),
        .testTarget(name: "GBGBridgeLocalizationTests", dependencies: ["GBGBridgeLocalization"]),
        .testTarget(name: "BlockingWorkTests", dependencies: ["BlockingWork"]),
        .testTarget(name: "CardReadersTests", dependencies: ["CardReaders"]),
        .executableTarget(
            name: "gbgbridge-gtk-testhost",
            dependencies: [
                "GBGBridge", "GBGBridgeGTK", "GBGBridgeToolkit", "GBGBridgeCapabilities", "CWebKitGTK", "V4L2Capture",
                "PipeWireCapture", "VideoFrame",
                "GBGBridgeNFC",
            ],
            path: "Tests/GBGBridgeGTKTestHost",
            swiftSettings: strict,
            linkerSettings: [.linkedLibrary("soup-3.0")]
        ),
        .executableTarget(
            name: "gbgbridge-webkit-bench",
            dependencies: ["GBGBridge", "GBGBridgeGTK", "GBGBridgeToolkit", "GBGBridgeCapabilities", "CWebKitGTK"],
            path: "Benchmarks/WebKitBenchmarks",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "gbgbridge-dialog-testhost",
            dependencies: [
                "GBGBridge", "GBGBridgeGTK", "GBGBridgeToolkit", "GBGBridgeCapabilities", "GBGBridgeCapture", "Cameras",
                "GBGBridgeLocalization", "CWebKitGTK",
                "GBGBridgeGTKTestSupport", "GBGBridgeNFC", "EMRTD",
            ],
            path: "Tests/GBGBridgeDialogTestHost",
            swiftSettings: strict
        ),
        .testTarget(name: "GBGBridgeGTKTests", dependencies: ["GBGBridgeGTK"]),
        .testTarget(name: "PNGEncodingTests", dependencies: ["PNGEncoding", "CZlib"]),
        .testTarget(name: "V4L2CaptureTests", dependencies: ["V4L2Capture", "CV4L2", "GBGBridgeTestSupport"]),
        .testTarget(
            name: "GBGBridgeCaptureTests",
            dependencies: [
                "GBGBridgeCapture", "Cameras", "GBGBridgeToolkit", "GBGBridgeCapabilities", "V4L2Capture", "CWebKitGTK",
                "GBGBridge", "GBGBridgeTestSupport",
                "GBGBridgeGTKTestSupport", "VideoFrame", "MRZScanner", "MRZReader",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "PipeWireCaptureTests",
            dependencies: [
                "PipeWireCapture", "GBGBridgeCapture", "Cameras", "V4L2Capture", "CWebKitGTK", "GBGBridge",
                "GBGBridgeGTK", "GBGBridgeToolkit", "GBGBridgeCapabilities",
                "GBGBridgeTestSupport", "GBGBridgeGTKTestSupport", "VideoFrame",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "EMRTDTests", dependencies: ["EMRTD", "MRZReader", "GBGBridgeTestSupport"]),
        .testTarget(name: "MRZReaderTests", dependencies: ["MRZReader"]),
        .testTarget(
            name: "OCREngineTests", dependencies: ["OCREngine", "CTesseract"], exclude: ["Fixtures"]),
        .testTarget(
            name: "MRZScannerTests", dependencies: ["MRZScanner", "MRZReader", "OCREngine", "CTesseract"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "GBGBridgeNFCTests",
            dependencies: [
                "GBGBridgeNFC", "EMRTD", "PCSCReader", "CardReaders", "GBGBridge", "GBGBridgeGTK", "GBGBridgeToolkit",
                "GBGBridgeCapabilities", "GBGBridgeCapture",
                "CWebKitGTK",
                "GBGBridgeTestSupport", "VideoFrame",
                "GBGBridgeGTKTestSupport",
            ]
        ),
        .testTarget(
            name: "GBGBridgeBarcodeTests",
            dependencies: [
                "GBGBridgeBarcode", "Cameras", "GBGBridge", "GBGBridgeCapabilities", "CWebKitGTK",
                "GBGBridgeTestSupport", "GBGBridgeGTKTestSupport", "VideoFrame",
            ]),
        .testTarget(name: "ShellTests", dependencies: [], exclude: ["Fixtures"]),
    ]
)
