import EMRTD

/// Why a chip read failed, as the person and the journey are told.
public enum NFCReadFailure: Sendable, Equatable, CaseIterable {
    /// No reader, or no PC/SC service (`NFC_NOT_AVAILABLE`).
    case readerUnavailable
    /// No document was placed on the reader in the time allowed (`NO_DOCUMENT`).
    case noDocument
    /// The chip refused the key derived from the MRZ the journey sent (`ACCESS_DENIED`).
    case accessDenied
    /// The chip refused the card access number the journey sent (`ACCESS_DENIED`).
    case wrongCardAccessNumber
    /// The journey sent a card access number, but the chip offers no PACE (`PACE_NOT_SUPPORTED`):
    /// it opens with the MRZ only.
    case cardAccessNumberUnsupported
    /// The document left the reader, or the chip stopped answering, mid-read (`CHIP_READ_FAILED`).
    case chipReadFailed
    /// The chip answered, but what it holds cannot be understood here: a malformed file, a face
    /// image that does not decode, or a cryptographic step this host cannot do (`CHIP_READ_FAILED`,
    /// not recoverable: reading the same chip again ends the same way).
    case chipUnreadable
    /// The card on the reader has no travel-document application (`NOT_A_TRAVEL_DOCUMENT`).
    case notATravelDocument
    /// The chip broke the rules of the exchange: an answer whose secure messaging does not check
    /// out, an answer longer than asked for or chained past any bound (`CHIP_PROTOCOL_ERROR`, not
    /// recoverable: a chip, or something between it and the reader, that does this is not trusted
    /// to be read again).
    case chipProtocolViolation
    /// The chip answered too slowly: one command unanswered within the command deadline, or the
    /// read not done within the read deadline (`CHIP_TIMEOUT`, recoverable: a document lying
    /// better on the reader often answers faster).
    case chipTooSlow
}

/// What the chip-reading window shows.
public enum NFCReadState: Sendable, Equatable {
    /// Asking the person to place the document on the reader (its name is for logs: the window
    /// does not show device names).
    case waitingForDocument(readerName: String)
    /// A card is there; the host is opening its travel-document application and proving the access key.
    case authenticating
    /// Reading `file`, the `index`-th (0-based) of `count` files, `bytesRead` of `totalBytes` so far
    /// (`totalBytes` is 0 until the file's length is known).
    case reading(file: LDSFile, index: Int, count: Int, bytesRead: Int, totalBytes: Int)
    /// Checking the chip's signature (passive authentication).
    case verifying
    /// The read failed; `canRetry` when trying again (on the same request) may help.
    case failed(NFCReadFailure, canRetry: Bool)
    /// The chip was read and checked: the window confirms it briefly, then closes
    /// (``NFCReadWindow/confirmSuccess()``).
    case succeeded
}
