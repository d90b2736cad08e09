import CWebKitGTK

#if canImport(Glibc)
    import Glibc
#endif

/// The JavaScript the transport injects, and the names it shares with it.
///
/// Two worlds take part. The message handlers, the document token and the
/// delivery entry point live in an isolated script world the page cannot
/// reach. In the page's own world a top-frame script provides
/// `window.webkit.messageHandlers.gbgBridge.postMessage`: it turns the body
/// into JSON text, checks its size and hands it to the relay in the isolated
/// world: through the web-process extension's native post when it is there,
/// else as a synchronous DOM event on the top window. The relay forwards it
/// only when the top document's origin is allowed. Messages posted in one turn
/// of the page leave the relay as one native message (an array of JSON texts,
/// in order), which the transport splits.
///
/// Native-to-web delivery runs the other way: the transport evaluates a call
/// in the isolated world, which checks the document token (a secret of that
/// world, so no page script can read or forge it) and hands each message to
/// the page: through the extension's native hand-over (parsed in the page's
/// world), else as a DOM event to the page-world script; either calls
/// `window.GBGBridge.receive(message)` and reports an exception back.
///
/// Frames get no handler, cannot dispatch events on a cross-origin top
/// window, and bridge messages they send with `window.postMessage` are
/// reported as rejected.
enum BridgeScripts {
    /// The isolated world that holds the real handlers and the relay.
    static let worldName = GBGBRIDGE_RELAY_WORLD
    /// The handler receiving accepted bridge messages (detail of `script-message-received`).
    static let messageHandler = "gbgBridge"
    /// The handler receiving relay notices: hellos, rejections, oversize messages, console records.
    static let controlHandler = "gbgBridgeControl"
    /// The key that marks bridge messages forged with `window.postMessage` (rejected).
    static let relayTag = "__gbgBridgeRelay"
    /// The isolated-world function the delivery script calls.
    static let deliverFunction = "__gbgBridgeDeliver"

    /// Page world, with the web-process extension: the native function handing a large message's JSON text to
    /// the relay's ``relayTakeFunction`` (taken from the window by the page-world script before page scripts run).
    static let nativePostFunction = GBGBRIDGE_PAGE_POST
    /// Relay world: the function taking one message's JSON text from the page world (origin check, batching).
    static let relayTakeFunction = GBGBRIDGE_RELAY_TAKE
    /// Relay world, with the web-process extension: the native function handing one message's JSON text to the
    /// page's `GBGBridge.receive`, parsed in the page's world; returns "" or the exception it threw.
    static let nativeHandOverFunction = GBGBRIDGE_RELAY_HAND_OVER
    /// Relay world, with the web-process extension: the native function sending the messages the relay accepted
    /// in one turn (a JSON text or an array of them) to the UI process as one user message.
    static let nativeSendFunction = GBGBRIDGE_RELAY_SEND
    /// The shortest message, in UTF-16 units, after which ``nativePostFunction`` tells the web process's garbage
    /// collector that a large object graph was let go.
    static let largeMessageUnits = 64 * 1024

    /// Page world to relay: one message as JSON text.
    static let messageEvent = "__gbgBridgeMessage"
    /// Page world to relay: a notice (oversize message, console record) as JSON text.
    static let noticeEvent = "__gbgBridgeNotice"
    /// Relay to page world: one message for `GBGBridge.receive`, as JSON text.
    static let deliverEvent = "__gbgBridgeDeliver"
    /// Page world to relay, during a delivery: the exception `receive` threw.
    static let deliverFailedEvent = "__gbgBridgeDeliverFailed"
    /// Page world to relay: the page is about to block (an `alert()`, `confirm()`, `prompt()` or
    /// `print()`), so messages waiting for the end of its turn go to the host now.
    static let flushEvent = "__gbgBridgeFlush"

    /// Most console records one document forwards; later ones are counted, not sent.
    static let maxConsoleRecords = 5000
    /// Longest console text forwarded, in UTF-16 units.
    static let maxConsoleTextLength = 8192

    /// Page-world script: the `postMessage` entry point, the delivery listener, and
    /// (with `forwardsConsole`) the console and error hooks.
    ///
    /// - Parameters:
    ///   - maxMessageUnits: Bodies longer than this many UTF-16 units are refused in the
    ///     page: `postMessage` throws a `RangeError` and the host is told the size. (A
    ///     UTF-8 byte count is never below the UTF-16 count, so such a body is over a
    ///     byte limit of the same number; the host checks the exact byte size itself.)
    ///   - forwardsConsole: Whether `console.*`, uncaught errors and unhandled rejections
    ///     are forwarded to the host.
    static func pageWorld(maxMessageUnits: Int, forwardsConsole: Bool) -> String {
        """
        (function () {
          var target = window;
          var dispatch = EventTarget.prototype.dispatchEvent;
          var listen = EventTarget.prototype.addEventListener;
          var Relay = CustomEvent;
          var stringify = JSON.stringify;
          var parse = JSON.parse;
          var isArray = Array.isArray;
          var ownKeys = Object.keys;
          var tagOf = Object.prototype.toString;
          var timeOf = Date.prototype.getTime;
          var isoText = Date.prototype.toISOString;
          var numberOf = Number.prototype.valueOf;
          var textOf = String.prototype.valueOf;
          var truthOf = Boolean.prototype.valueOf;
          // JSON text of a body as JSON.stringify writes it, but read the way structured cloning reads
          // it (as WebKit on iOS passes bodies): own enumerable properties only, and no toJSON, from
          // the value or any prototype, so a library that puts toJSON on Object.prototype or
          // Array.prototype cannot change what is sent. Dates are written as JSON writes them.
          function encode(value, path) {
            if (value === null) { return "null"; }
            var type = typeof value;
            if (type === "string" || type === "number" || type === "boolean") { return stringify(value); }
            if (type === "bigint") { throw new TypeError("a BigInt cannot be sent as JSON"); }
            if (type !== "object") { return undefined; }
            for (var depth = 0; depth < path.length; depth++) {
              if (path[depth] === value) { throw new TypeError("cyclic object value"); }
            }
            // Built by concatenation: JavaScriptCore keeps the pieces as a rope, so a large string
            // member is copied once more only when the text is posted, not at every level.
            var text;
            var index;
            if (isArray(value)) {
              path[path.length] = value;
              text = "[";
              for (index = 0; index < value.length; index++) {
                var element = encode(value[index], path);
                text += (index ? "," : "") + (element === undefined ? "null" : element);
              }
              path.length -= 1;
              return text + "]";
            }
            var tag = tagOf.call(value);
            try {
              if (tag === "[object Date]") {
                var time = timeOf.call(value);
                return time === time && time !== Infinity && time !== -Infinity ? stringify(isoText.call(value)) : "null";
              }
              if (tag === "[object Number]") { return stringify(numberOf.call(value)); }
              if (tag === "[object String]") { return stringify(textOf.call(value)); }
              if (tag === "[object Boolean]") { return stringify(truthOf.call(value)); }
            } catch (notThatKind) {}
            path[path.length] = value;
            var names = ownKeys(value);
            text = "{";
            for (index = 0; index < names.length; index++) {
              var member = encode(value[names[index]], path);
              if (member !== undefined) { text += (text.length > 1 ? "," : "") + stringify(names[index]) + ":" + member; }
            }
            path.length -= 1;
            return text + "}";
          }
          var replace = String.prototype.replace;
          var wellFormed = String.prototype.isWellFormed;
          var loneSurrogate = /\\p{Cs}/gu;
          var limit = \(maxMessageUnits);
          function send(type, text) { dispatch.call(target, new Relay(type, { detail: text })); }
          // With the web-process extension a message goes to the relay by a native call, which hands it the same
          // string (a DOM event's detail is copied for the other world, and the event costs more); the function
          // is taken from the window before any page script runs.
          var nativePost = null;
          try {
            var offered = window.\(nativePostFunction);
            if (typeof offered === "function") { nativePost = offered; delete window.\(nativePostFunction); }
          } catch (ignored) {}
          function sendMessage(text) {
            if (nativePost !== null) { nativePost(text, text.length >= \(largeMessageUnits)); }
            else { send("\(messageEvent)", text); }
          }
          function escapeSurrogate(unit) { return "\\\\u" + unit.charCodeAt(0).toString(16); }
          function post(body) {
            var text;
            if (typeof body === "string") {
              text = body;
            } else {
              var problem = null;
              try { text = encode(body, []); } catch (error) { problem = String(error.message || error); }
              if (problem === null && typeof text !== "string") { problem = "it is " + typeof body + ", not a JSON value"; }
              if (problem !== null) {
                send("\(noticeEvent)", encode({ kind: "unserializable", reason: problem }, []));
                throw new TypeError("GBGBridge: the message cannot be sent as JSON (" + problem + ")");
              }
            }
            if (text.length > limit) {
              send("\(noticeEvent)", encode({ kind: "oversize", units: text.length }, []));
              throw new RangeError("GBGBridge: the message is at least " + text.length +
                " bytes, over the host's limit of " + limit + " bytes");
            }
            if (wellFormed ? !wellFormed.call(text) : loneSurrogate.test(text)) {
              text = replace.call(text, loneSurrogate, escapeSurrogate);
            }
            sendMessage(text);
          }
          var handler = Object.freeze({ postMessage: function (body) { post(body); } });
          if (!window.webkit) {
            Object.defineProperty(window, "webkit", {
              value: Object.freeze({ messageHandlers: Object.freeze({ \(messageHandler): handler }) })
            });
          } else {
            // WebKit's own `window.webkit`: the embedder registered a handler in the page's world.
            try {
              Object.defineProperty(window.webkit.messageHandlers, "\(messageHandler)", { value: handler });
            } catch (ignored) {}
          }
          // A dialog blocks the page's turn, and the relay sends at the end of a turn: hand over
          // what is waiting first, so that a journey.complete posted just before alert() arrives.
          ["alert", "confirm", "prompt", "print"].forEach(function (name) {
            var original = window[name];
            if (typeof original !== "function") { return; }
            Object.defineProperty(window, name, {
              configurable: true, writable: true,
              value: function () {
                try { send("\(flushEvent)", ""); } catch (ignored) {}
                return original.apply(this, arguments);
              }
            });
          });
          listen.call(target, "\(deliverEvent)", function (event) {
            event.stopImmediatePropagation();
            try {
              var detail = event.detail;
              window.GBGBridge.receive(typeof detail === "string" ? parse(detail) : detail);
            } catch (error) {
              send("\(deliverFailedEvent)", replace.call(String(error), /\\s+/g, " "));
            }
          }, true);
        \(forwardsConsole ? consoleHooks : "")
        })();
        """
    }

    /// Page-world hooks forwarding `console.*`, uncaught errors and unhandled rejections.
    private static let consoleHooks = """
          var records = 0;
          var dropped = 0;
          var frame = /^(?:.*@)?(.*):(\\d+):(\\d+)$/;
          var split = String.prototype.split;
          function describe(value) {
            if (typeof value === "string") { return value; }
            try {
              if (value instanceof Error) { return String(value); }
              var json = stringify(value);
              return typeof json === "string" ? json : String(value);
            } catch (error) { return String(value); }
          }
          function place(stack, depth) {
            var lines = split.call(String(stack || ""), "\\n");
            for (var i = depth; i < lines.length; i++) {
              var match = frame.exec(lines[i]);
              if (match && match[1].indexOf("[native code]") < 0) {
                return { source: match[1], line: +match[2], column: +match[3] };
              }
            }
            return { source: "", line: 0, column: 0 };
          }
          function record(level, text, where) {
            if (records >= \(maxConsoleRecords)) {
              dropped += 1;
              if (dropped === 1) {
                send("\(noticeEvent)", stringify({ kind: "console", level: "warn", source: "", line: 0, column: 0,
                  text: "GBGBridge: further console output from this page is not forwarded" }));
              }
              return;
            }
            records += 1;
            if (text.length > \(maxConsoleTextLength)) { text = text.slice(0, \(maxConsoleTextLength)) + "…"; }
            send("\(noticeEvent)", stringify({ kind: "console", level: level, text: text,
              source: where.source, line: where.line, column: where.column }));
          }
          ["log", "info", "warn", "error", "debug"].forEach(function (level) {
            var original = console[level];
            console[level] = function () {
              var parts = [];
              for (var i = 0; i < arguments.length; i++) { parts.push(describe(arguments[i])); }
              try { record(level, parts.join(" "), place(new Error().stack, 1)); } catch (ignored) {}
              return original.apply(console, arguments);
            };
          });
          listen.call(target, "error", function (event) {
            if (!event.isTrusted || (event.target !== window && event.target !== undefined)) { return; }
            var text = event.error instanceof Error ? String(event.error) : String(event.message);
            record("uncaught", text, { source: String(event.filename || ""), line: event.lineno || 0,
              column: event.colno || 0 });
          }, true);
          // WebKit dispatches its own unhandledrejection events untrusted, so this one cannot tell a forged
          // event from a real one; a forged one only records what the page could log itself.
          listen.call(target, "unhandledrejection", function (event) {
            var reason = event.reason;
            record("unhandled-rejection", describe(reason), reason instanceof Error ? place(reason.stack, 0)
              : { source: "", line: 0, column: 0 });
          }, true);
        """

    /// Isolated-world relay script: forwards the top document's messages when its origin
    /// is allowed, holds the document token and the delivery entry point.
    ///
    /// The document's own origin is checked (`location.origin`). Anything posted
    /// to the top window with `window.postMessage` and the relay tag is a frame
    /// or another window trying to get in: it is rejected and reported.
    static func relay(allowedOrigins: [String]) -> String {
        let origins = "[" + allowedOrigins.map(javaScriptStringLiteral).joined(separator: ",") + "]"
        return """
            (function () {
              var allowed = \(origins);
              var handlers = window.webkit.messageHandlers;
              var bridge = handlers.\(messageHandler);
              var control = handlers.\(controlHandler);
              var random = new Uint32Array(4);
              crypto.getRandomValues(random);
              var token = Array.prototype.map.call(random, function (n) { return n.toString(36); }).join("-");
              // For the web-process extension, which checks deliveries against it (this world only).
              Object.defineProperty(window, "\(WebProcessExtension.tokenProperty)", { value: token });
              var queue = [];
              // With the web-process extension a turn's messages go to the host as one user message (see
              // `nativeSendFunction`), else through the message handler.
              var nativeSend = typeof window.\(nativeSendFunction) === "function" ? window.\(nativeSendFunction) : null;
              // With it, each delivered message's JSON text is parsed in the page's world and handed over natively.
              var handOver =
                typeof window.\(nativeHandOverFunction) === "function" ? window.\(nativeHandOverFunction) : null;
              function isAllowed() { return allowed.indexOf(location.origin) >= 0; }
              function flush() {
                if (queue.length === 0) { return; }
                var batch = queue;
                queue = [];
                var posted = batch.length === 1 ? batch[0] : batch;
                if (nativeSend !== null) { nativeSend(posted); } else { bridge.postMessage(posted); }
              }
              function reject() {
                control.postMessage({ kind: "rejected", origin: location.origin, fromTopFrame: true });
              }
              function take(text) {
                if (!isAllowed()) { reject(); return; }
                if (typeof text === "string" && queue.push(text) === 1) { queueMicrotask(flush); }
              }
              window.addEventListener("\(messageEvent)", function (event) {
                event.stopImmediatePropagation();
                take(event.detail);
              }, true);
              // The web-process extension's way in from the page's world (see `nativePostFunction`).
              Object.defineProperty(window, "\(relayTakeFunction)", { value: take });
              window.addEventListener("\(flushEvent)", function (event) {
                event.stopImmediatePropagation();
                flush();
              }, true);
              window.addEventListener("\(noticeEvent)", function (event) {
                event.stopImmediatePropagation();
                if (!isAllowed() || typeof event.detail !== "string") { return; }
                control.postMessage({ kind: "notice", body: event.detail });
              }, true);
              window.addEventListener("message", function (event) {
                // A script can dispatch a MessageEvent with any origin and source it likes; only one the
                // browser delivered (window.postMessage) says who sent it.
                if (!event.isTrusted) { return; }
                var data = event.data;
                if (data === null || typeof data !== "object" || !("\(relayTag)" in data)) { return; }
                event.stopImmediatePropagation();
                var fromTop = event.source === window;
                control.postMessage({ kind: "rejected", origin: String(event.origin), fromTopFrame: fromTop });
              }, true);
              Object.defineProperty(window, "\(deliverFunction)", { value: function (batch) {
                if (batch[0] !== token) { return -1; }
                var failures = [];
                var index = 0;
                // With the web-process extension each message comes as JSON text and is parsed in the page's world
                // and handed to it natively, which returns the exception receive threw (no DOM event either way).
                if (handOver !== null) {
                  for (index = 0; index < batch.length - 1; index++) {
                    var item = batch[index + 1];
                    var failure = typeof item === "string" ? handOver(item) : handOver(JSON.stringify(item));
                    if (failure) { failures.push(index + ":" + failure); }
                  }
                  return failures.length ? failures.join("\\n") : 0;
                }
                function failed(event) {
                  event.stopImmediatePropagation();
                  failures.push(index + ":" + event.detail);
                }
                window.addEventListener("\(deliverFailedEvent)", failed, true);
                try {
                  for (index = 0; index < batch.length - 1; index++) {
                    window.dispatchEvent(new CustomEvent("\(deliverEvent)", { detail: batch[index + 1] }));
                  }
                } finally {
                  window.removeEventListener("\(deliverFailedEvent)", failed, true);
                }
                return failures.length ? failures.join("\\n") : 0;
              } });
              if (isAllowed()) { control.postMessage({ kind: "hello", token: token }); }
              // A document brought back from the back/forward cache keeps its token but was
              // replaced meanwhile: it says hello again so it can receive.
              window.addEventListener("pageshow", function (event) {
                if (event.isTrusted && event.persisted && isAllowed()) {
                  control.postMessage({ kind: "hello", token: token });
                }
              }, true);
            })();
            """
    }

    /// The isolated-world script delivering encoded messages, in order, to the document holding `token`.
    ///
    /// Shaped as one call with one array literal: the token, then each message's
    /// JSON text as an object literal, which JavaScriptCore reads with its fast
    /// literal parser; WebKit hands the page world a structured clone of it. A
    /// message that may name a `__proto__` key goes as a string literal instead (an
    /// object literal would set the prototype rather than keep the key), parsed in the
    /// page; so does any text with a `\\u` escape, which could spell that key.
    /// Evaluates to `-1` when the document has changed, `0` when all were
    /// delivered, else to `index:error` lines for the messages whose `receive` call threw.
    static func delivery(of messages: [String], toDocument token: String, asText: Bool = false) -> [UInt8] {
        var script: [UInt8] = []
        script.reserveCapacity(messages.reduce(64 + token.utf8.count) { $0 + $1.utf8.count + 4 })
        script.append(contentsOf: "\(deliverFunction)([".utf8)
        appendStringLiteral(of: token, to: &script)
        for json in messages {
            script.append(UInt8(ascii: ","))
            if asText || mayNameProtoKey(json) {
                appendStringLiteral(of: json, to: &script)
            } else {
                script.append(contentsOf: json.utf8)
            }
        }
        script.append(contentsOf: "])".utf8)
        return script
    }

    /// Whether `json` contains `__proto__` or a `\\u` escape (two `memchr` scans).
    private static func mayNameProtoKey(_ json: String) -> Bool {
        var json = json
        return json.withUTF8 { text in
            guard let base = text.baseAddress else { return false }
            let end = base + text.count
            var cursor = base
            while cursor < end, let found = memchr(cursor, Int32(UInt8(ascii: "\\")), end - cursor) {
                let at = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
                if at + 1 < end && at[1] == UInt8(ascii: "u") { return true }
                cursor = at + 2
            }
            cursor = base
            while cursor < end, let found = memchr(cursor, Int32(UInt8(ascii: "_")), end - cursor) {
                let at = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
                if end - at >= protoKey.count && memcmp(at, protoKey, protoKey.count) == 0 { return true }
                cursor = at + 1
            }
            return false
        }
    }

    private static let protoKey: [UInt8] = Array("__proto__".utf8)

    /// Appends `text` as a double-quoted string literal that is valid JSON and JavaScript.
    ///
    /// Runs of bytes that need no escape are copied in one piece, so a large
    /// base64 payload costs little more than a copy.
    static func appendStringLiteral(of text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            let count = bytes.count
            func flushRun() {
                if runStart < index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
            }
            while index < count {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte == 0xE2 else {
                    index += 1
                    continue
                }
                if byte == 0xE2 {
                    guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] & 0xFE == 0xA8 else {
                        index += 1
                        continue
                    }
                    flushRun()
                    output.append(contentsOf: (bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                    index += 3
                } else {
                    flushRun()
                    if byte < 0x20 {
                        output.append(contentsOf: "\\u00".utf8)
                        output.append(hexDigit(byte >> 4))
                        output.append(hexDigit(byte & 0x0F))
                    } else {
                        output.append(UInt8(ascii: "\\"))
                        output.append(byte)
                    }
                    index += 1
                }
                runStart = index
            }
            flushRun()
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// `text` as a double-quoted JavaScript string literal.
    static func javaScriptStringLiteral(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 2)
        appendStringLiteral(of: text, to: &output)
        return String(decoding: output, as: UTF8.self)
    }
}
