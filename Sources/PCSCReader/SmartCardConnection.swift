import CPCSC

/// A connection to the card on one reader: APDU exchange, and the card's answer to reset.
///
/// Blocking, like ``PCSCContext``; use it from one thread at a time.
public final class SmartCardConnection: @unchecked Sendable {
    /// The reader the card is on.
    public let readerName: String
    let card: SCARDHANDLE
    let activeProtocol: DWORD
    private var isConnected = true

    init(card: SCARDHANDLE, activeProtocol: DWORD, readerName: String) {
        self.card = card
        self.activeProtocol = activeProtocol
        self.readerName = readerName
    }

    deinit {
        disconnect()
    }

    /// The card's answer to reset.
    public func answerToReset() throws(PCSCError) -> [UInt8] {
        var nameLength: DWORD = 0
        var state: DWORD = 0
        var cardProtocol: DWORD = 0
        var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
        var atrLength = DWORD(atr.count)
        try check(SCardStatus(card, nil, &nameLength, &state, &cardProtocol, &atr, &atrLength), "SCardStatus")
        return Array(atr.prefix(Int(atrLength)))
    }

    /// Sends one command APDU and returns the response APDU (data followed by SW1 SW2).
    ///
    /// Extended-length commands pass through unchanged; whether the reader forwards them is the
    /// reader's business (a reader that cannot answers with an error).
    public func transmit(_ command: [UInt8]) throws(PCSCError) -> [UInt8] {
        var response = [UInt8](repeating: 0, count: 4 + 3 + 65536 + 3 + 2)
        var responseLength = DWORD(response.count)
        let pci = activeProtocol == DWORD(SCARD_PROTOCOL_T0) ? gbg_pcsc_pci_t0() : gbg_pcsc_pci_t1()
        let result = command.withUnsafeBufferPointer { commandBytes in
            SCardTransmit(card, pci, commandBytes.baseAddress, DWORD(command.count), nil, &response, &responseLength)
        }
        try check(result, "SCardTransmit")
        return Array(response.prefix(Int(responseLength)))
    }

    /// Ends the connection, leaving the card as it is. Calling it again does nothing.
    public func disconnect() {
        guard isConnected else { return }
        isConnected = false
        SCardDisconnect(card, DWORD(SCARD_LEAVE_CARD))
    }
}
