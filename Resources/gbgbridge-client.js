/*
 * gbgbridge-client.js: a small, dependency-free client for the GBGBridge message
 * protocol (version 1.0), for web journeys hosted by gbgbridge-shell or any other
 * GBGBridge host.
 *
 *   <script src="gbgbridge-client.js"></script>
 *   const bridge = window.GBGBridgeClient;
 *   const caps = await bridge.request("capability.query", {}, { timeout: 5000 });
 *   bridge.on("host.ready", (data, message) => { ... });
 *   bridge.send("journey.complete", { outcome: "completed" });
 *
 * request() resolves with the response payload ({ action, status, data, error }) for
 * every status the host answers with (success, error, cancelled, unsupported,
 * acknowledged). It rejects only when no answer can arrive: no host, a timeout, or a
 * message that could not be posted. The rejection is an Error with a `code` of
 * "NO_BRIDGE", "TIMEOUT" or "POST_FAILED".
 *
 * Messages from the host arrive through window.GBGBridge.receive, which this file
 * installs (keeping any receive function that was there before as a fallback for
 * messages it does not recognise).
 */
(function (global) {
  "use strict";

  var PROTOCOL_VERSION = "1.0";

  var pending = Object.create(null);
  var listeners = Object.create(null);
  var anyListeners = [];

  function makeCorrelationId() {
    var cryptoObject = global.crypto;
    if (cryptoObject && typeof cryptoObject.randomUUID === "function") {
      try {
        return cryptoObject.randomUUID();
      } catch (ignored) {
        /* randomUUID needs a secure context; fall through */
      }
    }
    var bytes = new Uint8Array(16);
    if (cryptoObject && typeof cryptoObject.getRandomValues === "function") {
      cryptoObject.getRandomValues(bytes);
    } else {
      for (var i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = [];
    for (var j = 0; j < 16; j++) hex.push((bytes[j] + 0x100).toString(16).slice(1));
    return (
      hex.slice(0, 4).join("") + "-" + hex.slice(4, 6).join("") + "-" +
      hex.slice(6, 8).join("") + "-" + hex.slice(8, 10).join("") + "-" +
      hex.slice(10, 16).join("")
    );
  }

  function messageHandler() {
    var webkit = global.webkit;
    var handlers = webkit && webkit.messageHandlers;
    return handlers && handlers.gbgBridge ? handlers.gbgBridge : null;
  }

  function clientError(code, text) {
    var error = new Error(text);
    error.code = code;
    return error;
  }

  function envelope(type, action, data) {
    return {
      version: PROTOCOL_VERSION,
      correlationId: makeCorrelationId(),
      type: type,
      timestamp: Date.now(),
      payload: { action: action, data: data === undefined ? {} : data }
    };
  }

  function post(message) {
    var handler = messageHandler();
    if (!handler) {
      throw clientError("NO_BRIDGE", "No GBGBridge host: window.webkit.messageHandlers.gbgBridge is missing");
    }
    try {
      handler.postMessage(message);
    } catch (error) {
      throw clientError("POST_FAILED", "Could not post the message: " + (error && error.message ? error.message : error));
    }
  }

  function emit(action, data, message) {
    var list = (listeners[action] || []).concat(anyListeners);
    for (var i = 0; i < list.length; i++) {
      try {
        list[i](data, message);
      } catch (error) {
        setTimeout(function () { throw error; }, 0);
      }
    }
  }

  function receive(input) {
    var message = input;
    if (typeof input === "string") {
      try {
        message = JSON.parse(input);
      } catch (ignored) {
        return;
      }
    }
    if (!message || typeof message !== "object" || !message.payload) {
      if (typeof previousReceive === "function") previousReceive(input);
      return;
    }
    if (message.type === "response") {
      var entry = pending[message.correlationId];
      if (!entry) return;
      delete pending[message.correlationId];
      if (entry.timer) clearTimeout(entry.timer);
      entry.resolve(message.payload);
      return;
    }
    if (message.type === "event") {
      emit(message.payload.action, message.payload.data || {}, message);
      return;
    }
    if (typeof previousReceive === "function") previousReceive(input);
  }

  /**
   * Sends a request and returns a promise of the host's response payload.
   * options.timeout: milliseconds to wait before rejecting with code "TIMEOUT"
   * (default: wait for ever, as capture requests may take as long as the user needs).
   */
  function request(action, data, options) {
    return new Promise(function (resolve, reject) {
      var message = envelope("request", action, data);
      var entry = { resolve: resolve, reject: reject, timer: null };
      pending[message.correlationId] = entry;
      var timeout = options && options.timeout;
      if (typeof timeout === "number" && timeout > 0) {
        entry.timer = setTimeout(function () {
          if (pending[message.correlationId] !== entry) return;
          delete pending[message.correlationId];
          reject(clientError("TIMEOUT", "No response to '" + action + "' within " + timeout + " ms"));
        }, timeout);
      }
      try {
        post(message);
      } catch (error) {
        delete pending[message.correlationId];
        if (entry.timer) clearTimeout(entry.timer);
        reject(error);
      }
    });
  }

  /** Sends a fire-and-forget event to the host. Throws if there is no host. */
  function send(action, data) {
    post(envelope("event", action, data));
  }

  /**
   * Calls fn(data, message) for every event with this action from the host ("*" for
   * every event). Returns a function that removes the listener.
   */
  function on(action, fn) {
    if (typeof fn !== "function") throw new TypeError("on() needs a function");
    var list = action === "*" ? anyListeners : (listeners[action] = listeners[action] || []);
    list.push(fn);
    return function off() {
      var index = list.indexOf(fn);
      if (index >= 0) list.splice(index, 1);
    };
  }

  var namespace = (global.GBGBridge = global.GBGBridge || {});
  var previousReceive = namespace.receive && namespace.receive.gbgBridgeClient ? null : namespace.receive;
  receive.gbgBridgeClient = true;
  namespace.receive = receive;

  var client = {
    protocolVersion: PROTOCOL_VERSION,
    request: request,
    send: send,
    on: on,
    /** True when a GBGBridge host is listening (the page runs inside a host). */
    isAvailable: function () { return messageHandler() !== null; },
    /** Number of requests still waiting for their response. */
    pendingCount: function () { return Object.keys(pending).length; }
  };

  global.GBGBridgeClient = client;
  if (typeof module === "object" && module && module.exports) module.exports = client;
})(typeof window !== "undefined" ? window : globalThis);
