#ifndef GBGBRIDGE_WEB_EXTENSION_H
#define GBGBRIDGE_WEB_EXTENSION_H

// The web-process side of the bridge's delivery path, loaded by WebKitGTK into each web process
// (webkit_web_context_set_web_extensions_directory). It has no API of its own: the UI process talks
// to it with user messages, whose names and parameters are these.

/// Sent by the extension to the view when a page is created: deliveries can go through it.
#define GBGBRIDGE_EXTENSION_READY "gbgbridge.extension-ready"
/// To the page, parameters `(saay)`: the document token the messages are for, and their JSON texts as
/// NUL-terminated byte strings (UTF-8).
/// The reply's parameters are `(is)`: 0 when delivered (the string lists "index:error" lines of
/// messages whose `receive` threw, if any), -1 when the document is not the one meant.
#define GBGBRIDGE_DELIVER "gbgbridge.deliver"
/// To the page, no parameters: replied to once every earlier delivery has run.
#define GBGBRIDGE_FLUSH "gbgbridge.flush"
/// The isolated world the relay runs in, and the property of its global object holding the
/// document's token (invisible to the page's own world).
#define GBGBRIDGE_RELAY_WORLD "gbgbridge"
#define GBGBRIDGE_TOKEN_PROPERTY "__gbgBridgeDocumentToken"
/// Page to host without a DOM event between the worlds: in the page's world a function the page-world script
/// takes (and removes) before any page script runs; it hands one message's JSON text to
/// `GBGBRIDGE_RELAY_TAKE`, the function the relay defines in its isolated world (a true second argument: the
/// text was large, the garbage collector is told).
#define GBGBRIDGE_PAGE_POST "__gbgBridgeNativePost"
#define GBGBRIDGE_RELAY_TAKE "__gbgBridgeTake"
/// Host to page: in the relay's world, a function taking one message's JSON text for the page: parsed in the
/// page's world and handed to `window.GBGBridge.receive`; it returns "" or the exception that call threw.
#define GBGBRIDGE_RELAY_HAND_OVER "__gbgBridgeNativeHandOver"
/// Page to host, from the relay's world: a function taking the messages the relay accepted in one turn (one JSON
/// text, or an array of them) and sending them to the view as one `GBGBRIDGE_POST` user message, parameters
/// `ay` for one text, `aay` for several: each text's UTF-8 bytes, exactly (no terminating NUL; a NUL inside
/// stays in).
#define GBGBRIDGE_RELAY_SEND "__gbgBridgeNativeSend"
#define GBGBRIDGE_POST "gbgbridge.post"
/// The relay world's hidden property holding the page-world function the hand-over calls for its document.
#define GBGBRIDGE_RELAY_PAGE_RECEIVE "__gbgBridgePageReceive"

#endif
