import CWebKitGTK
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// One benchmark run: a window with a bridge-configured web view on the benchmark page.
///
/// The round trip is measured natively as the period between consecutive
/// `capability.query` requests of a page that sends each one only after the
/// previous response arrived (WebKit coarsens `performance.now()` to 1 ms).
@MainActor
final class BenchmarkRun: BridgeHostDelegate {
    static let baseURI = "http://bench.invalid/"
    static let eventCount = 10_000
    static let roundTrips = 2_000
    static let bigResponseBytes = 20 << 20

    private let host = BridgeHost(hostVersion: "1.0.0")
    private let page: String
    private let startedAt: Double
    private var webView: UnsafeMutablePointer<WebKitWebView>!
    private var reports: [String: CheckedContinuation<BridgeMessage, Never>] = [:]
    private var early: [String: BridgeMessage] = [:]
    private var ticks: [Int] = []
    private var queryArrivals: [Double] = []

    private var ticksWanted = 0
    private var ticksDone: CheckedContinuation<Void, Never>?

    init(page: String, startedAt: Double) {
        self.page = page
        self.startedAt = startedAt
    }

    nonisolated static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }

    /// Runs every measurement and prints the results; returns `true` when something failed.
    func measure() async -> Bool {
        var failed = false
        host.delegate = self

        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        gtk_window_set_default_size(gtkCast(window), 800, 600)
        webView = BridgeWebViewConfigurator.makeWebView(
            host: host, originPolicy: OriginPolicy(allowedOrigins: [Self.baseURI]))
        gtk_container_add(gtkCast(window), gtkCast(webView))
        gtk_widget_show_all(window)
        webkit_web_view_load_html(webView, page, Self.baseURI)
        _ = await report("bench.domReady")
        print("startup_to_domcontentloaded_ms \(format(Self.now() - startedAt))")
        let big = String(repeating: "QUJD", count: Self.bigResponseBytes / 4)
        host.registerCustomCapability("bench.big") { _, responder in
            responder.respond(status: .success, data: ["imageBase64": .string(big)], error: nil)
        }

        evaluate("bench.roundTrips(100)")
        _ = await report("bench.roundTrips")
        queryArrivals.removeAll(keepingCapacity: true)
        evaluate("bench.roundTrips(\(Self.roundTrips))")
        _ = await report("bench.roundTrips")
        let periods = zip(queryArrivals.dropFirst(), queryArrivals).map { $0 - $1 }.sorted()
        print("roundtrip_p50_ms \(format(periods[periods.count / 2]))")
        print("roundtrip_p99_ms \(format(periods[periods.count * 99 / 100]))")

        var start = Self.now()
        await withCheckedContinuation { continuation in
            ticks = []
            ticksWanted = Self.eventCount
            ticksDone = continuation
            evaluate("bench.sendEvents(\(Self.eventCount))")
        }
        var elapsed = Self.now() - start
        let inOrder = ticks == Array(0..<Self.eventCount)
        print("events_web_to_native_per_s \(Int(Double(Self.eventCount) / elapsed * 1000))")
        print("events_web_to_native_lost \(Self.eventCount - ticks.count)")
        failed = failed || !inOrder

        start = Self.now()
        for index in 0..<Self.eventCount {
            host.send(event: "bench.tick", data: ["i": .number(Double(index))])
        }
        BridgeWebViewConfigurator.transport(of: webView)?.flush {}
        evaluate("bench.reportTicks()")
        let delivered = await report("bench.ticks")
        elapsed = Self.now() - start
        let count = Int(number(delivered, "count"))
        print("events_native_to_web_per_s \(Int(Double(Self.eventCount) / elapsed * 1000))")
        print("events_native_to_web_lost \(Self.eventCount - count)")
        failed = failed || count != Self.eventCount || delivered.payload.data?["inOrder"] != .bool(true)

        var bigTimes: [Double] = []
        for _ in 0..<3 {
            evaluate("bench.big()")
            let result = await report("bench.bigDone")
            failed = failed || Int(number(result, "length")) != Self.bigResponseBytes
            bigTimes.append(number(result, "ms"))
        }
        print("response_20mib_ms \(format(bigTimes.sorted()[1]))")

        var bigRequestTimes: [Double] = []
        for _ in 0..<3 {
            evaluate("bench.bigRequest()")
            let result = await report("bench.bigRequestDone")
            failed = failed || result.payload.data?["status"] != .string("success")
            bigRequestTimes.append(number(result, "ms"))
        }
        print("request_60mib_ms \(format(bigRequestTimes.sorted()[1]))")
        if let error = host.lastError {
            print("error \(error)")
            failed = true
        }
        return failed
    }

    func bridgeHost(_ host: BridgeHost, unhandledRequest message: BridgeMessage) {}

    func bridgeHost(_ host: BridgeHost, didReceive message: BridgeMessage) {
        let action = message.payload.action
        if action == "capability.query" {
            queryArrivals.append(Self.now())
            return
        }
        if action == "bench.tick" {
            if case .number(let index) = message.payload.data?["i"] { ticks.append(Int(index)) }
            if ticks.count == ticksWanted, let done = ticksDone {
                ticksDone = nil
                done.resume()
            }
            return
        }
        if let waiter = reports.removeValue(forKey: action) {
            waiter.resume(returning: message)
        } else {
            early[action] = message
        }
    }

    private func report(_ action: String) async -> BridgeMessage {
        if let message = early.removeValue(forKey: action) { return message }
        return await withCheckedContinuation { reports[action] = $0 }
    }

    private func evaluate(_ script: String) {
        webkit_web_view_evaluate_javascript(webView, script, -1, nil, nil, nil, nil, nil)
    }

    private func number(_ message: BridgeMessage, _ key: String) -> Double {
        if case .number(let value) = message.payload.data?[key] { return value }
        return .nan
    }

    private func format(_ value: Double) -> String {
        let scaled = (value * 1000).rounded() / 1000
        return "\(scaled)"
    }
}
