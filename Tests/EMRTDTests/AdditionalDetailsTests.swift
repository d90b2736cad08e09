import Testing

@testable import EMRTD

/// DG11 and DG12 as chips write them: names with fillers, places in components, dates in ASCII
/// and in packed BCD, lists in constructed templates; and the hostile variants.
@Suite("Additional personal and document details (DG11, DG12)")
struct AdditionalDetailsTests {
    static func element(_ tag: UInt32, _ text: String) -> [UInt8] { TLV.encode(tag: tag, value: Array(text.utf8)) }

    static let dataGroup11 = TLV.encode(
        tag: 0x6B,
        value: TLV.encode(tag: 0x5C, value: [0x5F, 0x0E, 0x5F, 0x2B, 0x5F, 0x11, 0x5F, 0x17])
            + element(0x5F0E, "ERIKSSON<<ANNA<MARIA") + TLV.encode(tag: 0x5F2B, value: [0x19, 0x69, 0x08, 0x06])
            + element(0x5F11, "ZENITH<UTO") + element(0x5F42, "12 HARBOUR ROAD<ZENITH<<UTO")
            + element(0x5F17, "L898902C<X1234567")
            + TLV.encode(
                tag: 0xA0,
                value: TLV.encode(tag: 0x02, value: [2]) + element(0x5F0F, "LINDQVIST<<ANNA")
                    + element(0x5F0F, "BERG<<A")))

    static let dataGroup12 = TLV.encode(
        tag: 0x6C,
        value: element(0x5F19, "UTOPIA PASSPORT OFFICE") + element(0x5F26, "20120415")
            + element(0x5F55, "20120415093000") + element(0x5F1B, "NONE")
            + TLV.encode(tag: 0x5F1D, value: [0xFF, 0xD8, 0xFF]))

    /// DG11 with other names as ICAO Doc 9303-10 writes them: `A0 { 02 count, 5F0F name, ... }`.
    static func dataGroup11(otherNames list: [UInt8]) -> [UInt8] {
        TLV.encode(tag: 0x6B, value: element(0x5F0E, "ERIKSSON<<ANNA<MARIA") + TLV.encode(tag: 0xA0, value: list))
    }

    @Test("DG11 gives the full name, birth date and place, address, other names and other document numbers")
    func personalDetails() throws {
        let details = try AdditionalDetails(dataGroup11: Self.dataGroup11)
        #expect(
            details.fields == [
                "fullName": "ERIKSSON, ANNA MARIA", "fullDateOfBirth": "19690806", "placeOfBirth": "ZENITH, UTO",
                "address": "12 HARBOUR ROAD, ZENITH, UTO",
            ])
        #expect(
            details.lists == [
                "otherNames": ["LINDQVIST, ANNA", "BERG, A"], "otherTravelDocumentNumbers": ["L898902C", "X1234567"],
            ])
    }

    @Test("other names and other persons: 5F0F and 5F1A in a counted A0 template")
    func countedListsPerICAO() throws {
        let three =
            TLV.encode(tag: 0x02, value: [3]) + Self.element(0x5F0F, "A<<B") + Self.element(0x5F0F, "C<<D")
            + Self.element(0x5F0F, "E<<F")
        #expect(
            try AdditionalDetails(dataGroup11: Self.dataGroup11(otherNames: three)).lists["otherNames"] == [
                "A, B", "C, D", "E, F",
            ])
        let persons = TLV.encode(
            tag: 0x6C,
            value: TLV.encode(
                tag: 0xA0,
                value: TLV.encode(tag: 0x02, value: [2]) + Self.element(0x5F1A, "ERIKSSON<<LARS")
                    + Self.element(0x5F1A, "ERIKSSON<<EVA")))
        #expect(
            try AdditionalDetails(dataGroup12: persons).lists == ["otherPersons": ["ERIKSSON, LARS", "ERIKSSON, EVA"]])
        // An other name outside a template, as some issuers write it, still counts.
        let loose = TLV.encode(tag: 0x6B, value: Self.element(0x5F0F, "LINDQVIST<<ANNA"))
        #expect(try AdditionalDetails(dataGroup11: loose).lists == ["otherNames": ["LINDQVIST, ANNA"]])
    }

    @Test("a list whose count disagrees, that has no count, or holds other tags is refused; a bare 0F is no name")
    func badListsAreRefused() throws {
        let name = Self.element(0x5F0F, "LINDQVIST<<ANNA")
        for list in [
            TLV.encode(tag: 0x02, value: [2]) + name, TLV.encode(tag: 0x02, value: [0]) + name, name,
            TLV.encode(tag: 0x02, value: [1]) + Self.element(0x0F, "LINDQVIST<<ANNA"),
            TLV.encode(tag: 0x02, value: [1, 0]) + name,
            TLV.encode(tag: 0x02, value: [1]) + TLV.encode(tag: 0xA0, value: TLV.encode(tag: 0x02, value: [0])),
        ] {
            #expect(throws: ChipError.self) { try AdditionalDetails(dataGroup11: Self.dataGroup11(otherNames: list)) }
        }
        let bare = TLV.encode(tag: 0x6B, value: Self.element(0x0F, "LINDQVIST<<ANNA"))
        #expect(try AdditionalDetails(dataGroup11: bare).lists == [:])
        // At most 99 names.
        let many = TLV.encode(tag: 0x02, value: [120]) + (0..<120).flatMap { _ in name }
        #expect(throws: ChipError.self) { try AdditionalDetails(dataGroup11: Self.dataGroup11(otherNames: many)) }
        let loose = TLV.encode(tag: 0x6B, value: (0..<120).flatMap { _ in name })
        #expect(throws: ChipError.self) { try AdditionalDetails(dataGroup11: loose) }
    }

    @Test("DG12 gives the issuing authority, dates and endorsements, and leaves its images out")
    func documentDetailsSkipImages() throws {
        let details = try AdditionalDetails(dataGroup12: Self.dataGroup12)
        #expect(
            details.fields == [
                "issuingAuthority": "UTOPIA PASSPORT OFFICE", "dateOfIssue": "20120415",
                "personalizationDateTime": "20120415093000", "endorsementsAndObservations": "NONE",
            ])
        #expect(details.lists == [:])
    }

    @Test("a file of the wrong template is refused, and a date that is not BCD is left out")
    func wrongTemplateAndBadDatesAreRefusedOrLeftOut() throws {
        #expect(throws: (any Error).self) { try AdditionalDetails(dataGroup11: Self.dataGroup12) }
        #expect(throws: (any Error).self) { try AdditionalDetails(dataGroup12: []) }
        let badDate = TLV.encode(tag: 0x6C, value: TLV.encode(tag: 0x5F26, value: [0x20, 0x1A, 0x04, 0x15]))
        #expect(try AdditionalDetails(dataGroup12: badDate).fields == [:])
    }

    @Test("DG11 and DG12 are read only when EF.COM lists them")
    func optionalDataGroupsAreReadOnlyWhenEFCOMListsThem() {
        let files: [LDSFile] = [.common, .dg1, .dg2, .dg11, .dg12, .securityObject]
        let listsDG11: [UInt8] = [0x60, 0x05, 0x5C, 0x03, 0x61, 0x75, 0x6B]
        #expect(PassportReader.plan(files, listedIn: listsDG11) == [.common, .dg1, .dg2, .dg11, .securityObject])
        let listsAll: [UInt8] = [0x60, 0x08, 0x5C, 0x06, 0x61, 0x75, 0x6B, 0x6C, 0x6E, 0x6F]
        #expect(
            PassportReader.plan(files, listedIn: listsAll)
                == [.common, .dg14, .dg1, .dg2, .dg11, .dg12, .dg15, .securityObject])
        #expect(
            PassportReader.plan(files + [.dg14], listedIn: listsAll, checksAuthenticity: false)
                == [.common, .dg1, .dg2, .dg11, .dg12, .securityObject, .dg14])
    }

    @Test("seeded mutations of DG11 and DG12 never crash their parsers")
    func mutatedDataGroupsNeverCrash() {
        var generator = HostileChipDataTests.Generator(state: 11_12)
        for seed in [Self.dataGroup11, Self.dataGroup12] {
            for bytes in HostileChipDataTests.mutations(of: seed, count: 2000, generator: &generator) {
                _ = try? AdditionalDetails(dataGroup11: bytes)
                _ = try? AdditionalDetails(dataGroup12: bytes)
            }
        }
    }
}
