import EMRTD

#if canImport(Glibc)
    import Glibc
#endif

/// The parser under test, named by the environment variable CHIP_FUZZ_TARGET (a
/// ``ChipFileParser`` raw value such as `dg2`), so one binary serves every chip target and each
/// target keeps its own corpus.
let parserUnderTest: ChipFileParser = {
    let name = getenv("CHIP_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let parser = ChipFileParser(rawValue: name) else {
        let names = ChipFileParser.allCases.map(\.rawValue).joined(separator: ", ")
        fatalError("set CHIP_FUZZ_TARGET to one of: \(names) (got \"\(name)\")")
    }
    return parser
}()

/// libFuzzer entry point: hands the bytes to the selected chip file parser. Rejecting them is
/// fine; trapping, reading out of bounds, leaking or hanging is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = parserUnderTest.parse(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
