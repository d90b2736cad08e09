import GBGBridgeLocalization
import GBGBridgeNFC

extension JourneyRun {
    /// `nfc.read` on the `--nfc-reader` reader, offered while it is connected. With
    /// `--nfc-reader none` it is never offered, and its requests are still answered.
    func chipReaderCapability() -> RunCapability? {
        let chipReader = NFCReadCapability(
            host: host,
            options: .init(
                reader: settings.nfcReader, store: settings.cscaStore, documentTimeout: settings.nfcTimeout,
                showsWindow: !settings.isUnattended, readSize: settings.nfcReadSize,
                apduTimeout: settings.nfcAPDUTimeout))
        guard settings.nfcReader != .none else { return RunCapability(capability: chipReader) }
        let store = settings.cscaStore
        if !store.certificates.isEmpty {
            ShellOutput.note(
                tr(
                    "nfc.read: trusted CSCA certificates: {certificates}, revocation lists: {lists} (from {source})",
                    [
                        "certificates": String(store.certificates.count), "lists": String(store.revocationLists.count),
                        "source": store.source,
                    ]))
        }
        if store.ignoredRevocationListCount > 0 {
            ShellOutput.warning(
                tr(
                    "nfc.read: revocation lists signed by none of the CSCA certificates, ignored: {count} (in {source})",
                    ["count": String(store.ignoredRevocationListCount), "source": store.source]))
        }
        chipReader.onReaderChange = { reader in
            if let reader {
                ShellOutput.note(tr("nfc.read: chips are read on the reader '{reader}'", ["reader": reader]))
            } else {
                ShellOutput.note(tr("nfc.read: the reader is gone; nfc.read is no longer offered"))
            }
        }
        return RunCapability(capability: chipReader) { [settings] in
            if chipReader.readerName == nil, case .named = settings.nfcReader {
                ShellOutput.warning(
                    tr(
                        "nfc.read is not offered: {reason}",
                        ["reason": chipReader.unavailableReason ?? tr("no smart-card reader is connected")]))
            }
        }
    }
}
