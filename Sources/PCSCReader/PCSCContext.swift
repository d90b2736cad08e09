import CPCSC

/// A connection to the PC/SC service (`pcscd`): the reader list, waits for cards and readers, and
/// connections to cards.
///
/// Every call blocks the calling thread: use it from a thread or task of its own, never the main
/// actor. ``cancel()`` may be called from any thread to end a wait in progress.
public final class PCSCContext: @unchecked Sendable {
    /// The name pcsc-lite gives the pseudo-reader whose state changes when a reader comes or goes.
    public static let readerChangeNotification = "\\\\?PnP?\\Notification"

    let handle: SCARDCONTEXT

    /// Opens a context; throws ``PCSCError/Kind/serviceUnavailable`` when `pcscd` cannot be reached.
    public init() throws(PCSCError) {
        var context: SCARDCONTEXT = 0
        try check(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context), "SCardEstablishContext")
        handle = context
    }

    deinit {
        SCardReleaseContext(handle)
    }

    /// The names of the connected readers (empty when none is connected).
    public func readers() throws(PCSCError) -> [String] {
        var length: DWORD = 0
        let first = SCardListReaders(handle, nil, nil, &length)
        if UInt32(truncatingIfNeeded: first) == PCSCCode.noReadersAvailable { return [] }
        try check(first, "SCardListReaders")
        var buffer = [CChar](repeating: 0, count: Int(length))
        let second = SCardListReaders(handle, nil, &buffer, &length)
        if UInt32(truncatingIfNeeded: second) == PCSCCode.noReadersAvailable { return [] }
        try check(second, "SCardListReaders")
        return Self.splitMultiString(buffer)
    }

    /// Whether a card is on `reader`, and pcsc-lite's count of card events there (it changes each
    /// time a card is placed or taken off).
    public struct ReaderStatus: Sendable, Equatable {
        public let cardPresent: Bool
        public let eventCount: Int
    }

    /// The state of `reader` now.
    public func status(of reader: String) throws(PCSCError) -> ReaderStatus {
        Self.status(from: try currentState(of: reader))
    }

    /// Waits up to `timeoutMilliseconds` for a card on `reader`; returns whether one is there.
    ///
    /// Throws ``PCSCError/Kind/cancelled`` when ``cancel()`` ends the wait, and
    /// ``PCSCError/Kind/noReader`` when the reader goes away.
    public func waitForCard(on reader: String, timeoutMilliseconds: UInt32) throws(PCSCError) -> Bool {
        try waitForCard(on: reader, timeoutMilliseconds: timeoutMilliseconds) { _ in true }
    }

    /// Waits up to `timeoutMilliseconds` for a card placed on `reader` after the event count
    /// `eventCount` (a card taken off and put back, or another card); returns whether one came.
    public func waitForCard(on reader: String, placedAfter eventCount: Int, timeoutMilliseconds: UInt32)
        throws(PCSCError) -> Bool
    {
        try waitForCard(on: reader, timeoutMilliseconds: timeoutMilliseconds) { $0.eventCount != eventCount }
    }

    private func waitForCard(
        on reader: String, timeoutMilliseconds: UInt32, accepting: (ReaderStatus) -> Bool
    ) throws(PCSCError) -> Bool {
        var state = try currentState(of: reader)
        func ready(_ state: DWORD) -> Bool {
            let status = Self.status(from: state)
            return status.cardPresent && accepting(status)
        }
        if ready(state) { return true }
        var remaining = Int64(timeoutMilliseconds)
        let clock = ContinuousClock()
        while remaining > 0 {
            let started = clock.now
            do {
                state = try waitForChange(of: reader, from: state, timeoutMilliseconds: UInt32(remaining))
            } catch  where error.kind == .timedOut {
                return false
            }
            if state & DWORD(SCARD_STATE_UNKNOWN | SCARD_STATE_UNAVAILABLE) != 0 {
                throw PCSCError(code: PCSCCode.readerUnavailable, call: "SCardGetStatusChange")
            }
            if ready(state) { return true }
            let elapsed = clock.now - started
            remaining -= elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        }
        return false
    }

    static func status(from state: DWORD) -> ReaderStatus {
        ReaderStatus(
            cardPresent: state & DWORD(SCARD_STATE_PRESENT) != 0 && state & DWORD(SCARD_STATE_MUTE) == 0,
            eventCount: Int((state >> 16) & 0xFFFF))
    }

    /// Waits up to `timeoutMilliseconds` for a reader to be connected or disconnected; returns
    /// whether the list may have changed (then call ``readers()``).
    public func waitForReaderChange(timeoutMilliseconds: UInt32) throws(PCSCError) -> Bool {
        let count = UInt32(truncatingIfNeeded: try readers().count)
        do {
            _ = try waitForChange(
                of: Self.readerChangeNotification, from: DWORD(count) << 16, timeoutMilliseconds: timeoutMilliseconds)
            return true
        } catch  where error.kind == .timedOut {
            return false
        }
    }

    /// Ends a ``waitForCard(on:timeoutMilliseconds:)`` or ``waitForReaderChange(timeoutMilliseconds:)``
    /// in progress on another thread. Safe from any thread.
    public func cancel() {
        SCardCancel(handle)
    }

    /// Connects to the card on `reader` (shared, T=1 or T=0).
    public func connect(to reader: String) throws(PCSCError) -> SmartCardConnection {
        var card: SCARDHANDLE = 0
        var activeProtocol: DWORD = 0
        try check(
            SCardConnect(
                handle, reader, DWORD(SCARD_SHARE_SHARED), DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card,
                &activeProtocol),
            "SCardConnect")
        return SmartCardConnection(card: card, activeProtocol: activeProtocol, readerName: reader)
    }

    private func currentState(of reader: String) throws(PCSCError) -> DWORD {
        try waitForChange(of: reader, from: DWORD(SCARD_STATE_UNAWARE), timeoutMilliseconds: 0, timeoutIsError: false)
    }

    private func waitForChange(
        of reader: String, from known: DWORD, timeoutMilliseconds: UInt32, timeoutIsError: Bool = true
    ) throws(PCSCError) -> DWORD {
        var result: LONG = 0
        var eventState: DWORD = 0
        reader.withCString { name in
            var state = SCARD_READERSTATE()
            state.szReader = name
            state.dwCurrentState = known
            result = SCardGetStatusChange(handle, DWORD(timeoutMilliseconds), &state, 1)
            eventState = state.dwEventState
        }
        let code = UInt32(truncatingIfNeeded: result)
        if code == PCSCCode.timeout, !timeoutIsError { return eventState }
        try check(result, "SCardGetStatusChange")
        return eventState
    }

    static func splitMultiString(_ buffer: [CChar]) -> [String] {
        var names: [String] = []
        var start = 0
        for (index, byte) in buffer.enumerated() where byte == 0 {
            if index > start {
                names.append(String(decoding: buffer[start..<index].map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            start = index + 1
        }
        return names
    }
}
