import ArgumentParser
import FoundationEssentials
import GBGBridgeLocalization

/// Options for `nfc.read`: reading the chip of a passport or identity card on a PC/SC reader.
struct NFCOptions: ParsableArguments {
    @Option(
        name: .customLong("nfc-reader"),
        help: ArgumentHelp(
            "The PC/SC reader for nfc.read: auto (a contactless reader, else the first reader), a reader name or the start of one (see pcsc_scan), or none (nfc.read not offered). nfc.read appears in capability.query while the reader is connected.",
            valueName: "auto|name|none"))
    var reader: String = "auto"

    @Option(
        name: .customLong("csca"),
        help: ArgumentHelp(
            "Trust these Country Signing CA certificates for passive authentication: a folder of PEM or DER certificates, a certificate file, or an ICAO master list. Revocation lists (CRLs, PEM or DER) in the folder or file are checked too: a Document Signer its CSCA revoked makes the chip invalid. Without it every chip's signer is reported as unknownIssuer.",
            valueName: "path"))
    var csca: String?

    @Option(
        name: .customLong("nfc-timeout"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for a document on the reader before nfc.read answers NO_DOCUMENT, and then for the read to finish before it answers CHIP_READ_FAILED (default 60; 1 to 600).",
            valueName: "seconds"))
    var timeout: String?

    @Option(
        name: .customLong("nfc-apdu-timeout"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds one command to the chip may take before the chip counts as mute and nfc.read answers CHIP_READ_FAILED (default 10; up to 600).",
            valueName: "seconds"))
    var apduTimeout: String?

    @Flag(
        name: .customLong("nfc-short-apdus"),
        help: "Read chips with short APDUs only (for readers that mishandle extended-length APDUs).")
    var shortAPDUsOnly = false

    func validate() throws {
        if reader.allSatisfy(\.isWhitespace) {
            throw ValidationError(
                tr("--nfc-reader needs a reader name, auto or none (see pcsc_scan for the names of your readers)."))
        }
    }
}
