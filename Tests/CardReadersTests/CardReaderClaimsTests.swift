import Testing

@testable import CardReaders

@Suite("Card reader claims")
struct CardReaderClaimsTests {
    @Test("one owner per reader: a second claim is refused and names the holder; released, it is free again")
    func oneOwner() throws {
        let claims = CardReaderClaims()
        let first = try claims.claim("ACS ACR1252 00 00", for: "nfc.read")
        #expect(claims.holder(of: "ACS ACR1252 00 00") == "nfc.read")
        #expect(throws: CardReaderClaims.Busy(reader: "ACS ACR1252 00 00", holder: "nfc.read")) {
            _ = try claims.claim("ACS ACR1252 00 00", for: "nfc.write")
        }
        // Another reader is another card.
        let other = try claims.claim("Virtual PCD 00 00", for: "nfc.write")
        first.release()
        first.release()
        #expect(claims.holder(of: "ACS ACR1252 00 00") == nil)
        #expect(claims.holder(of: "Virtual PCD 00 00") == "nfc.write")
        _ = try claims.claim("ACS ACR1252 00 00", for: "nfc.write")
        other.release()
    }

    @Test("a claim freed without release gives the reader back")
    func releasedWhenFreed() throws {
        let claims = CardReaderClaims()
        do { _ = try claims.claim("reader", for: "nfc.read") }
        #expect(claims.holder(of: "reader") == nil)
    }

    @Test("claims from many threads at once: exactly one wins")
    func contended() async {
        let claims = CardReaderClaims()
        let winners = await withTaskGroup(of: CardReaderClaims.Claim?.self) { group in
            for index in 0..<32 { group.addTask { try? claims.claim("reader", for: "owner \(index)") } }
            var held: [CardReaderClaims.Claim] = []
            for await claim in group { if let claim { held.append(claim) } }
            return held
        }
        #expect(winners.count == 1)
    }

    @Test("which reader: contactless names first, a named one by whole name or prefix, none")
    func readerChoice() {
        let readers = ["Gemalto USB Smart Card Reader 00 00", "ACS ACR1252 Dual Reader PICC 00 01"]
        #expect(ReaderChoice.automatic.pick(from: readers) == "ACS ACR1252 Dual Reader PICC 00 01")
        #expect(ReaderChoice(argument: "gemalto").pick(from: readers) == "Gemalto USB Smart Card Reader 00 00")
        #expect(ReaderChoice(argument: "none").pick(from: readers) == nil)
    }
}
