/// One line of the journey's console output, or an error the page did not catch.
///
/// Forwarded from the top document of an allowed origin when
/// ``WebKitBridgeTransport/forwardsConsole`` is on.
public struct JourneyConsoleMessage: Sendable, Equatable {
    /// Where the record came from.
    public enum Level: String, Sendable, Equatable, CaseIterable {
        case log, info, warn, error, debug
        /// An exception no script caught (`window.onerror`).
        case uncaught
        /// A rejected promise nobody handled (`unhandledrejection`).
        case unhandledRejection = "unhandled-rejection"

        /// Whether this record is an error the page did not handle.
        public var isPageError: Bool { self == .uncaught || self == .unhandledRejection }
    }

    public let level: Level
    /// The text, as the console would show it (arguments joined by spaces).
    public let text: String
    /// The script's URL, or empty when unknown.
    public let source: String
    /// The line in `source`, or 0 when unknown.
    public let line: Int
    /// The column in `line`, or 0 when unknown.
    public let column: Int

    public init(level: Level, text: String, source: String, line: Int, column: Int) {
        self.level = level
        self.text = text
        self.source = source
        self.line = line
        self.column = column
    }

    /// `source:line:column`, or an empty string when the place is unknown.
    public var place: String {
        guard !source.isEmpty else { return "" }
        return line > 0 ? "\(source):\(line):\(column)" : source
    }
}
