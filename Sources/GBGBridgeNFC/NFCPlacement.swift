import EMRTD
import GBGBridge
import GBGBridgeLocalization

/// Which kind of document the chip-reading window asks for, as far as the request tells.
public enum NFCDocumentKind: Sendable, Equatable, CaseIterable {
    /// A booklet (TD3 MRZ, document code `P`).
    case passport
    /// A card (a card access number, a TD1 MRZ, or a document code `I`, `A` or `C`).
    case identityCard
    /// The request does not tell (document number and dates only): the window shows both.
    case unknown

    /// The placements to suggest, in order: the first one while waiting, the next one after each
    /// "no document found", round and round.
    var placements: [NFCPlacement] {
        switch self {
        case .passport: return [.passportFrontCoverDown, .passportOpenAtDataPage, .passportBackCoverDown]
        case .identityCard: return [.cardInTheMiddle, .cardTowardsTopEdge]
        case .unknown: return []
        }
    }

    /// The suggestion to show after `step` times "no document found" (0: the first one).
    func suggestion(step: Int) -> NFCPlacementSuggestion {
        switch self {
        case .passport, .identityCard:
            let placements = self.placements
            return NFCPlacementSuggestion(placements: [placements[step % placements.count]])
        case .unknown:
            let passport = NFCDocumentKind.passport.placements
            let card = NFCDocumentKind.identityCard.placements
            return NFCPlacementSuggestion(placements: [passport[step % passport.count], card[step % card.count]])
        }
    }
}

/// One way to lay a document on the reader, with the words and the picture for it.
public enum NFCPlacement: Sendable, Equatable, CaseIterable {
    /// The closed passport, front cover on the reader.
    case passportFrontCoverDown
    /// The passport open at the photo page, lying open on the reader.
    case passportOpenAtDataPage
    /// The closed passport turned over, back cover on the reader.
    case passportBackCoverDown
    /// The card flat in the middle of the reader.
    case cardInTheMiddle
    /// The card moved slowly towards the reader's top edge.
    case cardTowardsTopEdge

    /// What to do, in short sentences.
    var instruction: String {
        switch self {
        case .passportFrontCoverDown:
            return tr("Close your passport. Lay it flat on the reader, front cover down.")
        case .passportOpenAtDataPage:
            return tr("Open your passport at the photo page. Lay it open and flat on the reader.")
        case .passportBackCoverDown:
            return tr("Close your passport and turn it over. Lay it flat on the reader, back cover down.")
        case .cardInTheMiddle:
            return tr("Lay your identity card flat in the middle of the reader.")
        case .cardTowardsTopEdge:
            return tr("Slide your identity card slowly towards the top edge of the reader.")
        }
    }

    /// What the picture shows, for screen readers.
    var pictureDescription: String {
        switch self {
        case .passportFrontCoverDown:
            return tr("A closed passport lies flat on the reader, front cover down.")
        case .passportOpenAtDataPage:
            return tr("A passport lies open at the photo page, flat on the reader.")
        case .passportBackCoverDown:
            return tr("A closed passport is turned over and lies on the reader, back cover down.")
        case .cardInTheMiddle:
            return tr("An identity card lies flat in the middle of the reader.")
        case .cardTowardsTopEdge:
            return tr("An identity card is moved up to the top edge of the reader.")
        }
    }
}

/// What the window suggests now: one placement, or one for a passport and one for a card side by side.
public struct NFCPlacementSuggestion: Sendable, Equatable {
    public let placements: [NFCPlacement]

    /// The sentences for the person, one line per document.
    var instruction: String { placements.map(\.instruction).joined(separator: "\n") }
    /// The picture's accessible name.
    var pictureDescription: String { placements.map(\.pictureDescription).joined(separator: " ") }
}

extension NFCReadRequest {
    /// The kind of document a request is for: a card access number means an identity card (the
    /// number printed on newer passports is rarely asked for); a whole MRZ tells by its shape and
    /// document code; document number and dates alone do not tell.
    static func documentKind(from data: [String: JSONValue]?) -> NFCDocumentKind {
        let data = data ?? [:]
        func text(_ key: String) -> String? {
            if case .string(let value)? = data[key] { return value }
            return nil
        }
        if let mrz = text("mrz"), let parsed = try? MRZ(mrz) {
            let lines = parsed.text.split(separator: "\n")
            if parsed.documentCode.hasPrefix("P") { return .passport }
            if lines.count == 3 || ["I", "A", "C"].contains(parsed.documentCode.prefix(1)) { return .identityCard }
            return lines.first?.count == 44 ? .passport : .unknown
        }
        if text("documentNumber") != nil, text("dateOfBirth") != nil, text("dateOfExpiry") != nil { return .unknown }
        if text("can") != nil { return .identityCard }
        return .unknown
    }
}
