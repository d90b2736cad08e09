import BlockingWork

/// One owner per card reader: a capability claims the reader it is about to use and holds the claim
/// until it is done, so that two capabilities (a chip read and, say, a card write) never talk to the
/// same card at once. A second claim of a held reader is refused and names the holder.
///
/// Reader names are compared as PC/SC gives them. The process shares one set of claims
/// (``shared``); tests may make their own.
public final class CardReaderClaims: Sendable {
    /// The process's claims.
    public static let shared = CardReaderClaims()

    /// A held reader; the claim ends with ``release()`` or when the value is freed.
    public final class Claim: Sendable {
        /// The reader held.
        public let reader: String
        /// Who holds it, as given to ``CardReaderClaims/claim(_:for:)``.
        public let owner: String
        private let claims: CardReaderClaims
        private let released = Locked(false)

        fileprivate init(reader: String, owner: String, claims: CardReaderClaims) {
            self.reader = reader
            self.owner = owner
            self.claims = claims
        }

        /// Gives the reader back (once; later calls do nothing).
        public func release() {
            let first = released.withLock { done in
                defer { done = true }
                return !done
            }
            if first { claims.end(reader) }
        }

        deinit { release() }
    }

    /// Why a claim was refused.
    public struct Busy: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reader asked for.
        public let reader: String
        /// Who holds it.
        public let holder: String

        public var description: String { "the reader \(reader) is in use by \(holder)" }
    }

    private let holders = Locked<[String: String]>([:])

    /// Claims; ``shared`` is the one to use outside tests.
    public init() {}

    /// Claims `reader` for `owner` (such as `"nfc.read"`), or throws ``Busy`` when someone holds it.
    public func claim(_ reader: String, for owner: String) throws(Busy) -> Claim {
        let holder = holders.withLock { holders -> String? in
            if let holder = holders[reader] { return holder }
            holders[reader] = owner
            return nil
        }
        if let holder { throw Busy(reader: reader, holder: holder) }
        return Claim(reader: reader, owner: owner, claims: self)
    }

    /// Who holds `reader`, or nil.
    public func holder(of reader: String) -> String? {
        holders.withLock { $0[reader] }
    }

    fileprivate func end(_ reader: String) {
        holders.withLock { _ = $0.removeValue(forKey: reader) }
    }
}
