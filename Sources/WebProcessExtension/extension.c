// The bridge's delivery path inside the web process.
//
// The UI process sends a page its messages as one user message: the token of the document they are
// meant for and their JSON texts. Here the token is compared with the one the relay keeps in its
// isolated world (out of reach of the page's scripts); on a match, each text is parsed once, in the
// page's world, and handed to `window.GBGBridge.receive`. Nothing is evaluated as script, and no event
// carries the message between worlds.
//
// The other way, a large message's JSON text goes from the page's world to the relay by a native call
// instead of a DOM event (whose detail WebKit copies for the other world): the page-world script posts it
// through `GBGBRIDGE_PAGE_POST`, which hands the same string to the relay's take function (the origin check
// and the batching). The function is made per document, when WebKit clears the main frame's window object.

#include <string.h>
#include <webkit2/webkit-web-extension.h>

#include "gbgbridge_web_extension.h"

static WebKitScriptWorld *relay_world;
static WebKitWebExtension *web_extension;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static WebKitFrame *main_frame(WebKitWebPage *page) { return webkit_web_page_get_main_frame(page); }
#pragma GCC diagnostic pop

/// Whether `token` is the relay's token for the document now in `frame`.
static gboolean is_current_document(WebKitFrame *frame, const char *token) {
    JSCContext *isolated = webkit_frame_get_js_context_for_script_world(frame, relay_world);
    if (isolated == NULL) return FALSE;
    JSCValue *current = jsc_context_get_value(isolated, GBGBRIDGE_TOKEN_PROPERTY);
    gboolean matches = FALSE;
    if (current != NULL && jsc_value_is_string(current)) {
        char *text = jsc_value_to_string(current);
        matches = text != NULL && token[0] != '\0' && strcmp(text, token) == 0;
        g_free(text);
    }
    if (current != NULL) g_object_unref(current);
    g_object_unref(isolated);
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

/// The page-world function that hands a message to `window.GBGBridge.receive` (looked up at each call, as
/// the page may replace it), made once per document and kept with that document's token.
typedef struct {
    char *token;
    JSCValue *hand_over;
} DocumentState;

static void document_state_free(gpointer data) {
    DocumentState *state = data;
    g_free(state->token);
    if (state->hand_over != NULL) g_object_unref(state->hand_over);
    g_free(state);
}

static JSCValue *hand_over_function(WebKitWebPage *page, JSCContext *context, const char *token) {
    DocumentState *state = g_object_get_data(G_OBJECT(page), "gbgbridge-document");
    if (state != NULL && strcmp(state->token, token) == 0) return state->hand_over;
    state = g_new0(DocumentState, 1);
    state->token = g_strdup(token);
    // Made by this extension, not by the page: a function of the page's world whose body the page cannot change.
    state->hand_over = jsc_context_evaluate(
        context, "(function (message) { window.GBGBridge.receive(message); })", -1);
    if (jsc_context_get_exception(context) != NULL) jsc_context_clear_exception(context);
    g_object_set_data_full(G_OBJECT(page), "gbgbridge-document", state, document_state_free);
    return state->hand_over;
}

/// Hands one message to the page: `window.GBGBridge.receive(JSON.parse(json))`, parsed natively.
static void hand_over(JSCContext *page, JSCValue *function, const char *json, gsize index, GString *failures) {
    JSCValue *message = jsc_value_new_from_json(page, json);
    if (message == NULL || jsc_context_get_exception(page) != NULL) {
        take_exception(page, index, failures);
        if (message != NULL) g_object_unref(message);
        return;
    }
    JSCValue *result = jsc_value_function_call(function, JSC_TYPE_VALUE, message, G_TYPE_NONE);
    take_exception(page, index, failures);
    if (result != NULL) g_object_unref(result);
    g_object_unref(message);
}

static void deliver(WebKitWebPage *page, WebKitUserMessage *message) {
    GVariant *parameters = webkit_user_message_get_parameters(message);
    if (parameters == NULL || !g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sas)"))) {
        webkit_user_message_send_reply(
            message, webkit_user_message_new(GBGBRIDGE_DELIVER, g_variant_new("(is)", -2, "malformed delivery")));
        return;
    }
    const char *token = NULL;
    GVariantIter *texts = NULL;
    g_variant_get(parameters, "(&sas)", &token, &texts);
    WebKitFrame *frame = main_frame(page);
    if (frame == NULL || !is_current_document(frame, token)) {
        g_variant_iter_free(texts);
        webkit_user_message_send_reply(
            message, webkit_user_message_new(GBGBRIDGE_DELIVER, g_variant_new("(is)", -1, "")));
        return;
    }
    JSCContext *context = webkit_frame_get_js_context(frame);
    JSCValue *function = hand_over_function(page, context, token);
    GString *failures = g_string_new(NULL);
    const char *json = NULL;
    gsize index = 0;
    while (g_variant_iter_next(texts, "&s", &json)) {
        if (function != NULL && jsc_value_is_function(function)) {
            hand_over(context, function, json, index, failures);
        } else {
            if (failures->len > 0) g_string_append_c(failures, '\n');
            g_string_append_printf(failures, "%" G_GSIZE_FORMAT ":Error: the page's world could not be reached", index);
        }
        index++;
    }
    g_variant_iter_free(texts);
    g_object_unref(context);
    webkit_user_message_send_reply(
        message, webkit_user_message_new(GBGBRIDGE_DELIVER, g_variant_new("(is)", 0, failures->str)));
    g_string_free(failures, TRUE);
}

/// The page world's post: hands one message's JSON text, as it is, to the relay's take function.
static void native_post(JSCValue *text, gpointer data) {
    WebKitWebPage *page = web_extension != NULL ? webkit_web_extension_get_page(web_extension, *(guint64 *)data) : NULL;
    WebKitFrame *frame = page != NULL ? main_frame(page) : NULL;
    if (frame == NULL || !jsc_value_is_string(text)) return;
    JSCContext *isolated = webkit_frame_get_js_context_for_script_world(frame, relay_world);
    if (isolated == NULL) return;
    JSCValue *take = jsc_context_get_value(isolated, GBGBRIDGE_RELAY_TAKE);
    if (take != NULL && jsc_value_is_function(take)) {
        JSCValue *result = jsc_value_function_call(take, JSC_TYPE_VALUE, text, G_TYPE_NONE);
        if (result != NULL) g_object_unref(result);
    }
    if (jsc_context_get_exception(isolated) != NULL) jsc_context_clear_exception(isolated);
    if (take != NULL) g_object_unref(take);
    g_object_unref(isolated);
}

/// A new document in the main frame, seen from the page's world: the post function its page-world script
/// takes (a configurable, hidden property of the window; the page's id is the function's data).
static void page_world_cleared(WebKitScriptWorld *world, WebKitWebPage *page, WebKitFrame *frame, gpointer data) {
    (void)data;
    if (!webkit_frame_is_main_frame(frame)) return;
    JSCContext *context = webkit_frame_get_js_context_for_script_world(frame, world);
    if (context == NULL) return;
    guint64 *page_id = g_new(guint64, 1);
    *page_id = webkit_web_page_get_id(page);
    JSCValue *function = jsc_value_new_function(
        context, GBGBRIDGE_PAGE_POST, G_CALLBACK(native_post), page_id, g_free, G_TYPE_NONE, 1, JSC_TYPE_VALUE);
    JSCValue *global = jsc_context_get_global_object(context);
    jsc_value_object_define_property_data(global, GBGBRIDGE_PAGE_POST, JSC_VALUE_PROPERTY_CONFIGURABLE, function);
    if (jsc_context_get_exception(context) != NULL) jsc_context_clear_exception(context);
    g_object_unref(global);
    g_object_unref(function);
    g_object_unref(context);
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
    relay_world = webkit_script_world_new_with_name(GBGBRIDGE_RELAY_WORLD);
    g_signal_connect(extension, "page-created", G_CALLBACK(page_created), NULL);
    g_signal_connect(webkit_script_world_get_default(), "window-object-cleared", G_CALLBACK(page_world_cleared), NULL);
}
