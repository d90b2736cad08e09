// The bridge's delivery path inside the web process.
//
// The UI process sends a page a large delivery (64 KiB or more) as one user message: the token of the document it is
// meant for and their JSON texts. Here the token is compared with the one the relay keeps in its
// isolated world (out of reach of the page's scripts); on a match, each text is parsed once, in the
// page's world, and handed to `window.GBGBridge.receive`. Nothing is evaluated as script, and no event
// carries the message between worlds.
//
// Between the worlds, messages cross by native calls instead of DOM events (a dispatch, and a copy of the
// detail for the other world): the page-world script posts through `GBGBRIDGE_PAGE_POST`, which hands the
// same string to the relay's take function (the origin check and the batching); the relay hands each
// delivered JSON text to `GBGBRIDGE_RELAY_HAND_OVER`, which parses it in the page's world and calls
// `window.GBGBridge.receive`. The messages the relay accepted in one turn leave it through `GBGBRIDGE_RELAY_SEND`,
// one user message to the view with their exact UTF-8 bytes (a script message's value would be made a JavaScript
// string again in the UI process before it could be read). All are made per document, when WebKit clears the main
// frame's window object.

#include <JavaScriptCore/JavaScript.h>
#include <string.h>
#include <webkit2/webkit-web-extension.h>

#include "gbgbridge_web_extension.h"

static WebKitScriptWorld *relay_world;
static WebKitWebExtension *web_extension;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static WebKitFrame *main_frame(WebKitWebPage *page) { return webkit_web_page_get_main_frame(page); }
#pragma GCC diagnostic pop

/// Whether `token` is the relay's token for the document now in the main frame (`relay`: its relay's world).
static gboolean is_current_document(JSCContext *relay, const char *token) {
    JSCValue *current = jsc_context_get_value(relay, GBGBRIDGE_TOKEN_PROPERTY);
    gboolean matches = FALSE;
    if (current != NULL && jsc_value_is_string(current)) {
        char *text = jsc_value_to_string(current);
        matches = text != NULL && token[0] != '\0' && strcmp(text, token) == 0;
        g_free(text);
    }
    if (current != NULL) g_object_unref(current);
    return matches;
}

/// Appends "index:Name: message" for the exception pending in `context`, and clears it.
static void take_exception(JSCContext *context, gsize index, GString *failures) {
    JSCException *exception = jsc_context_get_exception(context);
    if (exception == NULL) return;
    char *text = jsc_exception_to_string(exception);
    if (failures->len > 0) g_string_append_c(failures, '\n');
    g_string_append_printf(failures, "%" G_GSIZE_FORMAT ":", index);
    for (const char *c = text ? text : "exception"; *c; c++) {
        g_string_append_c(failures, (*c == '\n' || *c == '\r' || *c == '\t') ? ' ' : *c);
    }
    g_free(text);
    jsc_context_clear_exception(context);
}

/// Hands one message to the page: `window.GBGBridge.receive(JSON.parse(json))`, parsed natively in the page's
/// world, through `receive`, the page-world function the relay's world keeps for this document (see
/// relay_world_cleared); an exception it throws is reported in `relay`, the context it was reached from.
static void hand_over(
    JSCContext *page, JSCContext *relay, JSCValue *receive, const char *json, gsize index, GString *failures) {
    JSCValue *message = jsc_value_new_from_json(page, json);
    if (message == NULL || jsc_context_get_exception(page) != NULL) {
        take_exception(page, index, failures);
        if (message != NULL) g_object_unref(message);
        return;
    }
    JSCValue *result = jsc_value_function_call(receive, JSC_TYPE_VALUE, message, G_TYPE_NONE);
    take_exception(relay, index, failures);
    if (result != NULL) g_object_unref(result);
    g_object_unref(message);
}

// The native functions between the worlds use JavaScriptCore's C API: its GLib API wraps every argument and
// result in a GObject and calls through libffi, which costs more per call than the DOM event it would
// replace. The frame's JSGlobalContextRef for a world is only reachable through calls WebKitGTK marks
// deprecated (they are part of the 4.1 web-extension API).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static JSGlobalContextRef world_context(WebKitFrame *frame, WebKitScriptWorld *world) {
    return webkit_frame_get_javascript_context_for_script_world(frame, world);
}
#pragma GCC diagnostic pop

static void deliver(WebKitWebPage *page, WebKitUserMessage *message) {
    GVariant *parameters = webkit_user_message_get_parameters(message);
    if (parameters == NULL || !g_variant_is_of_type(parameters, G_VARIANT_TYPE("(saay)"))) {
        webkit_user_message_send_reply(
            message, webkit_user_message_new(GBGBRIDGE_DELIVER, g_variant_new("(is)", -2, "malformed delivery")));
        return;
    }
    const char *token = NULL;
    GVariantIter *texts = NULL;
    g_variant_get(parameters, "(&saay)", &token, &texts);
    WebKitFrame *frame = main_frame(page);
    JSCContext *relay = frame != NULL ? webkit_frame_get_js_context_for_script_world(frame, relay_world) : NULL;
    if (relay == NULL || !is_current_document(relay, token)) {
        if (relay != NULL) g_object_unref(relay);
        g_variant_iter_free(texts);
        webkit_user_message_send_reply(
            message, webkit_user_message_new(GBGBRIDGE_DELIVER, g_variant_new("(is)", -1, "")));
        return;
    }
    JSCContext *context = webkit_frame_get_js_context(frame);
    JSCValue *receive = jsc_context_get_value(relay, GBGBRIDGE_RELAY_PAGE_RECEIVE);
    GString *failures = g_string_new(NULL);
    gsize index = 0;
    GVariant *text = NULL;
    // Byte strings, not `s`: a string child is checked to be UTF-8 when it is read (a 20 MiB text costs about
    // as long to check as to parse); the JSON parse refuses what is not.
    while ((text = g_variant_iter_next_value(texts)) != NULL) {
        if (receive != NULL && jsc_value_is_function(receive)) {
            hand_over(context, relay, receive, g_variant_get_bytestring(text), index, failures);
        } else {
            if (failures->len > 0) g_string_append_c(failures, '\n');
            g_string_append_printf(failures, "%" G_GSIZE_FORMAT ":Error: the page's world could not be reached", index);
        }
        g_variant_unref(text);
        index++;
    }
    g_variant_iter_free(texts);
    if (receive != NULL) g_object_unref(receive);
    g_object_unref(context);
    g_object_unref(relay);
    // The texts (64 KiB or more) and their parse are garbage now: tell the collector (a hint, see native_post).
    JSGlobalContextRef page_world = world_context(frame, webkit_script_world_get_default());
    if (page_world != NULL) JSGarbageCollect(page_world);
    webkit_user_message_send_reply(
        message, webkit_user_message_new(GBGBRIDGE_DELIVER, g_variant_new("(is)", 0, failures->str)));
    g_string_free(failures, TRUE);
}


static JSStringRef take_name;
static JSStringRef page_receive_name;
static JSClassRef post_class;
static JSClassRef hand_over_class;
static JSClassRef send_class;

/// What a native function holds: the page it belongs to.
typedef struct {
    guint64 page_id;
} NativeData;

/// The page a native function belongs to, or NULL once it has gone.
static WebKitWebPage *native_page(JSObjectRef function) {
    NativeData *data = JSObjectGetPrivate(function);
    return data != NULL && web_extension != NULL ? webkit_web_extension_get_page(web_extension, data->page_id) : NULL;
}

/// The context of `world` in the main frame of the page a native function belongs to, or NULL.
static JSGlobalContextRef main_frame_context(JSObjectRef function, WebKitScriptWorld *world) {
    WebKitWebPage *page = native_page(function);
    WebKitFrame *frame = page != NULL ? main_frame(page) : NULL;
    return frame != NULL ? world_context(frame, world) : NULL;
}

static JSValueRef string_value(JSContextRef context, const char *text) {
    JSStringRef string = JSStringCreateWithUTF8CString(text);
    JSValueRef value = JSValueMakeString(context, string);
    JSStringRelease(string);
    return value;
}

/// The page world's post: hands one message's JSON text, as it is, to the relay's take function. A second
/// argument that is true says the text is large: once it has gone, the garbage collector is told that a
/// large object graph was let go (`JSGarbageCollect` is that hint, not a collection), so the page's copies
/// of it are collected soon rather than kept until memory grows further.
static JSValueRef native_post(
    JSContextRef context, JSObjectRef function, JSObjectRef self, size_t count, const JSValueRef arguments[],
    JSValueRef *exception) {
    (void)self;
    (void)exception;
    if (count < 1 || !JSValueIsString(context, arguments[0])) return JSValueMakeUndefined(context);
    JSGlobalContextRef relay = main_frame_context(function, relay_world);
    if (relay == NULL) return JSValueMakeUndefined(context);
    JSValueRef ignored = NULL;
    JSValueRef take = JSObjectGetProperty(relay, JSContextGetGlobalObject(relay), take_name, &ignored);
    if (take != NULL && JSValueIsObject(relay, take) && JSObjectIsFunction(relay, (JSObjectRef)take)) {
        JSObjectCallAsFunction(relay, (JSObjectRef)take, NULL, 1, arguments, &ignored);
    }
    if (count > 1 && JSValueToBoolean(context, arguments[1])) JSGarbageCollect(context);
    return JSValueMakeUndefined(context);
}

/// `text` as NUL-terminated UTF-8 the caller frees (NULs inside kept, `*length` bytes before the terminator), and
/// releases `text`.
static char *take_utf8(JSStringRef text, size_t *length) {
    size_t capacity = JSStringGetMaximumUTF8CStringSize(text);
    char *utf8 = g_malloc(capacity);
    size_t written = JSStringGetUTF8CString(text, utf8, capacity);
    JSStringRelease(text);
    *length = written > 0 ? written - 1 : 0;
    // The worst case is three bytes per unit: give back what a large text did not use.
    if (capacity > 1024 * 1024) utf8 = g_realloc(utf8, *length + 1);
    return utf8;
}

/// `value`'s UTF-8 bytes as an `ay` variant that owns them (NULs inside kept), or NULL when it is not a string.
static GVariant *utf8_bytes(JSContextRef context, JSValueRef value) {
    if (!JSValueIsString(context, value)) return NULL;
    JSStringRef text = JSValueToStringCopy(context, value, NULL);
    if (text == NULL) return NULL;
    size_t length = 0;
    char *utf8 = take_utf8(text, &length);
    return g_variant_new_from_data(G_VARIANT_TYPE_BYTESTRING, utf8, length, TRUE, g_free, utf8);
}

/// The relay's send: the messages it accepted in one turn (a JSON text or an array of them) go to the view as one
/// user message, in order, without a script message handler (whose value the UI process would turn back into a
/// JavaScript string before it could read it). Anything that is not a string is left out.
static JSValueRef native_send(
    JSContextRef context, JSObjectRef function, JSObjectRef self, size_t count, const JSValueRef arguments[],
    JSValueRef *exception) {
    (void)self;
    (void)exception;
    WebKitWebPage *page = native_page(function);
    if (page == NULL || count < 1) return JSValueMakeUndefined(context);
    if (!JSValueIsArray(context, arguments[0])) {
        // One message: its bytes are the parameters as they are (an array around them would be one more copy).
        GVariant *text = utf8_bytes(context, arguments[0]);
        if (text != NULL) {
            webkit_web_page_send_message_to_view(
                page, webkit_user_message_new(GBGBRIDGE_POST, text), NULL, NULL, NULL);
        }
        return JSValueMakeUndefined(context);
    }
    GVariantBuilder texts;
    g_variant_builder_init(&texts, G_VARIANT_TYPE("aay"));
    JSObjectRef batch = (JSObjectRef)arguments[0];
    JSValueRef ignored = NULL;
    JSStringRef length_name = JSStringCreateWithUTF8CString("length");
    double length = JSValueToNumber(context, JSObjectGetProperty(context, batch, length_name, &ignored), NULL);
    JSStringRelease(length_name);
    for (unsigned index = 0; length == length && index < length; index++) {
        GVariant *text = utf8_bytes(context, JSObjectGetPropertyAtIndex(context, batch, index, &ignored));
        if (text != NULL) g_variant_builder_add_value(&texts, text);
    }
    webkit_web_page_send_message_to_view(
        page, webkit_user_message_new(GBGBRIDGE_POST, g_variant_builder_end(&texts)), NULL, NULL, NULL);
    return JSValueMakeUndefined(context);
}

/// `error` as `String(error)` writes it, white-space runs made one space, as a string of `result_context`.
static JSValueRef describe_exception(JSContextRef context, JSValueRef error, JSContextRef result_context) {
    JSValueRef ignored = NULL;
    JSStringRef text = JSValueToStringCopy(context, error, &ignored);
    if (text == NULL) return string_value(result_context, "Error: exception");
    size_t length = 0;
    char *utf8 = take_utf8(text, &length);
    GString *collapsed = g_string_new(NULL);
    gboolean in_space = FALSE;
    for (const char *c = utf8; *c; c++) {
        gboolean space = g_ascii_isspace(*c);
        if (!space) g_string_append_c(collapsed, *c);
        else if (!in_space) g_string_append_c(collapsed, ' ');
        in_space = space;
    }
    g_free(utf8);
    JSValueRef value = string_value(result_context, collapsed->str);
    g_string_free(collapsed, TRUE);
    return value;
}

/// The relay's hand-over: parses one message's JSON text in the page's world and hands it to
/// `window.GBGBridge.receive`; returns "" or the exception, as `String(error)` writes it.
static JSValueRef native_hand_over(
    JSContextRef context, JSObjectRef function, JSObjectRef self, size_t count, const JSValueRef arguments[],
    JSValueRef *exception) {
    (void)self;
    (void)exception;
    JSGlobalContextRef page_world = main_frame_context(function, webkit_script_world_get_default());
    JSValueRef failure = NULL;
    // The page-world function made for this document, kept by the relay's world (see relay_world_cleared).
    JSValueRef receive =
        page_world != NULL ? JSObjectGetProperty(context, JSContextGetGlobalObject(context), page_receive_name, &failure)
                           : NULL;
    if (receive == NULL || !JSValueIsObject(context, receive) || count < 1 || !JSValueIsString(context, arguments[0])) {
        return string_value(context, "Error: the page's world could not be reached");
    }
    JSStringRef json = JSValueToStringCopy(context, arguments[0], &failure);
    JSValueRef message = json != NULL ? JSValueMakeFromJSONString(page_world, json) : NULL;
    if (json != NULL) JSStringRelease(json);
    if (message == NULL) return string_value(context, "SyntaxError: a delivered message is not JSON");
    JSObjectCallAsFunction(page_world, (JSObjectRef)receive, NULL, 1, &message, &failure);
    if (failure != NULL) return describe_exception(page_world, failure, context);
    return string_value(context, "");
}

static void native_finalize(JSObjectRef object) { g_free(JSObjectGetPrivate(object)); }

/// Defines `name` on the global object of `context` as a native function of `class`, holding the page's id.
/// The page world's may be removed (the page-world script takes it), the relay world's not.
static void define_native(
    JSGlobalContextRef context, const char *name, JSClassRef class, NativeData *data, gboolean removable) {
    JSObjectRef function = JSObjectMake(context, class, data);
    JSStringRef property = JSStringCreateWithUTF8CString(name);
    JSObjectSetProperty(
        context, JSContextGetGlobalObject(context), property, function,
        kJSPropertyAttributeDontEnum | kJSPropertyAttributeReadOnly | (removable ? 0 : kJSPropertyAttributeDontDelete),
        NULL);
    JSStringRelease(property);
}

/// A new document in the main frame, seen from the page's world: the post function its page-world script takes.
static void page_world_cleared(WebKitScriptWorld *world, WebKitWebPage *page, WebKitFrame *frame, gpointer data) {
    (void)data;
    if (!webkit_frame_is_main_frame(frame)) return;
    JSGlobalContextRef context = world_context(frame, world);
    if (context == NULL) return;
    NativeData *native = g_new0(NativeData, 1);
    native->page_id = webkit_web_page_get_id(page);
    define_native(context, GBGBRIDGE_PAGE_POST, post_class, native, TRUE);
}

/// A new document in the main frame, seen from the relay's world (its user script is about to run, before any
/// of the page's scripts): the relay's hand-over, and the page-world function it calls for this document (made
/// here, not by the page: a body the page cannot change, which looks `window.GBGBridge.receive` up at each
/// call, as the page may replace it). That function is a hidden property of the relay's world, so it lives
/// exactly as long as this document's relay (a document restored from the back/forward cache keeps both),
/// and nothing of a document outlives it.
static void relay_world_cleared(WebKitScriptWorld *world, WebKitWebPage *page, WebKitFrame *frame, gpointer data) {
    (void)data;
    if (!webkit_frame_is_main_frame(frame)) return;
    JSGlobalContextRef context = world_context(frame, world);
    JSGlobalContextRef page_world = world_context(frame, webkit_script_world_get_default());
    if (context == NULL || page_world == NULL) return;
    JSStringRef source = JSStringCreateWithUTF8CString("(function (message) { window.GBGBridge.receive(message); })");
    JSValueRef receive = JSEvaluateScript(page_world, source, NULL, NULL, 0, NULL);
    JSStringRelease(source);
    if (receive == NULL || !JSValueIsObject(page_world, receive)) return;
    JSObjectSetProperty(
        context, JSContextGetGlobalObject(context), page_receive_name, receive,
        kJSPropertyAttributeDontEnum | kJSPropertyAttributeReadOnly | kJSPropertyAttributeDontDelete, NULL);
    NativeData *native = g_new0(NativeData, 1);
    native->page_id = webkit_web_page_get_id(page);
    define_native(context, GBGBRIDGE_RELAY_HAND_OVER, hand_over_class, native, FALSE);
    NativeData *sender = g_new0(NativeData, 1);
    sender->page_id = native->page_id;
    define_native(context, GBGBRIDGE_RELAY_SEND, send_class, sender, FALSE);
}

static gboolean message_received(WebKitWebPage *page, WebKitUserMessage *message, gpointer data) {
    (void)data;
    const char *name = webkit_user_message_get_name(message);
    if (strcmp(name, GBGBRIDGE_DELIVER) == 0) {
        deliver(page, message);
        return TRUE;
    }
    if (strcmp(name, GBGBRIDGE_FLUSH) == 0) {
        webkit_user_message_send_reply(message, webkit_user_message_new(GBGBRIDGE_FLUSH, NULL));
        return TRUE;
    }
    return FALSE;
}

static void page_created(WebKitWebExtension *extension, WebKitWebPage *page, gpointer data) {
    (void)extension;
    (void)data;
    g_signal_connect(page, "user-message-received", G_CALLBACK(message_received), NULL);
    webkit_web_page_send_message_to_view(
        page, webkit_user_message_new(GBGBRIDGE_EXTENSION_READY, NULL), NULL, NULL, NULL);
}

G_MODULE_EXPORT void webkit_web_extension_initialize(WebKitWebExtension *extension) {
    web_extension = extension;
    take_name = JSStringCreateWithUTF8CString(GBGBRIDGE_RELAY_TAKE);
    page_receive_name = JSStringCreateWithUTF8CString(GBGBRIDGE_RELAY_PAGE_RECEIVE);
    JSClassDefinition post = kJSClassDefinitionEmpty;
    post.className = "GBGBridgeNativePost";
    post.callAsFunction = native_post;
    post.finalize = native_finalize;
    post_class = JSClassCreate(&post);
    JSClassDefinition hand_over = kJSClassDefinitionEmpty;
    hand_over.className = "GBGBridgeNativeHandOver";
    hand_over.callAsFunction = native_hand_over;
    hand_over.finalize = native_finalize;
    hand_over_class = JSClassCreate(&hand_over);
    JSClassDefinition send = kJSClassDefinitionEmpty;
    send.className = "GBGBridgeNativeSend";
    send.callAsFunction = native_send;
    send.finalize = native_finalize;
    send_class = JSClassCreate(&send);
    relay_world = webkit_script_world_new_with_name(GBGBRIDGE_RELAY_WORLD);
    g_signal_connect(extension, "page-created", G_CALLBACK(page_created), NULL);
    g_signal_connect(webkit_script_world_get_default(), "window-object-cleared", G_CALLBACK(page_world_cleared), NULL);
    g_signal_connect(relay_world, "window-object-cleared", G_CALLBACK(relay_world_cleared), NULL);
}
