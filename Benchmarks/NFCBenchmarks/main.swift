import EMRTD
import FoundationEssentials
import PCSCReader

#if canImport(Glibc)
    import Glibc
#endif

/// Times chip reads step by step on a PC/SC reader: EF.CardAccess, access control (PACE where the
/// chip offers it, else BAC), each file, Chip and Active Authentication where the chip has them,
/// the verification (passive authentication, proofs tied to it, the chip verdict), and the whole read, with extended and with short APDUs, plus the APDU count.
///
///     gbgbridge-nfc-bench READER DOCNUMBER YYMMDD YYMMDD [CSCA] [ROUNDS]
///
/// `scripts/nfc-bench.sh` runs it against the virtual passport.
let arguments = CommandLine.arguments
guard arguments.count >= 5 else {
    print("usage: gbgbridge-nfc-bench READER DOCUMENT-NUMBER BIRTH(YYMMDD) EXPIRY(YYMMDD) [CSCA-PATH] [ROUNDS]")
    exit(2)
}
let readerName = arguments[1]
let key = try MRZKey(documentNumber: arguments[2], dateOfBirth: arguments[3], dateOfExpiry: arguments[4])
let store = arguments.count > 5 ? try CSCAStore(contentsOf: arguments[5]) : .empty
let rounds = arguments.count > 6 ? Int(arguments[6]) ?? 20 : 20

/// Adapts a PC/SC connection to the chip reader.
final class Channel: CardChannel {
    let connection: SmartCardConnection
    init(_ connection: SmartCardConnection) { self.connection = connection }
    func transmit(_ command: [UInt8]) throws(CardChannelError) -> [UInt8] {
        do { return try connection.transmit(command) } catch {
            throw CardChannelError(detail: error.description, cardRemoved: error.kind == .cardRemoved)
        }
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }

func fixed(_ value: Double) -> String { String((value * 10).rounded() / 10) }

let context = try PCSCContext()
for mode in [PassportReader.ReadSize.automatic, .shortOnly] {
    var steps: [String: [Double]] = [:]
    var order: [String] = []
    var totals: [Double] = []
    var apdus = 0
    var sizes: [String: Int] = [:]
    var accessControl = ""
    var authenticity = ""
    for _ in 0..<rounds {
        let clock = ContinuousClock()
        let started = clock.now
        let connection = try context.connect(to: readerName)
        let reader = PassportReader(channel: Channel(connection), key: key, readSize: mode)
        let chip = try reader.readAndVerify(store: store)
        let contents = chip.contents
        connection.disconnect()
        totals.append(milliseconds(clock.now - started))
        let verifyStep = "verification (passive authentication \(chip.passiveAuthentication.status.rawValue))"
        let named = contents.timings.map { ($0.step.description, $0.duration) }
        for (step, duration) in named + [(verifyStep, chip.verifyDuration)] {
            if steps[step] == nil { order.append(step) }
            steps[step, default: []].append(milliseconds(duration))
        }
        apdus = contents.commandCount
        accessControl = contents.accessControl?.rawValue ?? ""
        authenticity =
            "Chip Authentication \(chip.chipAuthentication.status.rawValue), "
            + "Active Authentication \(chip.activeAuthentication.status.rawValue), chip \(chip.verdict.status.rawValue)"
        for (file, bytes) in contents.files { sizes[file.rawValue] = bytes.count }
    }
    let reads = mode == .automatic ? "extended-length reads" : "short reads only"
    print("\n\(accessControl), \(reads); \(authenticity) — \(rounds) reads, median ms")
    for step in order {
        let size = sizes[step].map { " (\($0) B)" } ?? ""
        print("  \(pad(step + size, 44)) \(fixed(median(steps[step] ?? [])))")
    }
    print(
        "  \(pad("total (connect to verdict)", 44)) \(fixed(median(totals)))   min \(fixed(totals.min() ?? 0))  max \(fixed(totals.max() ?? 0))"
    )
    print("  \(pad("APDUs per read", 44)) \(apdus)")
}
