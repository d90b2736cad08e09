#ifndef GBGBRIDGE_CWEBKITGTK_SHIM_H
#define GBGBRIDGE_CWEBKITGTK_SHIM_H

// GTK 3 + WebKitGTK 4.1 for Swift: the headers, typed casts for the GObject
// macros Swift cannot import, and the two libdispatch main-queue hooks used to
// drive Swift's main actor from the GLib main loop.

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <glib-unix.h>
#include <cairo.h>

// The names the UI process and the web-process extension share (user messages, the relay's world and its
// functions): one header, read by the extension's C and by the Swift transport, which also writes them
// into the page scripts.
#include "../WebProcessExtension/gbgbridge_web_extension.h"

// MARK: libdispatch main queue (exported by libdispatch, used by CoreFoundation)

/// File descriptor (an eventfd on Linux) that becomes readable when work is
/// enqueued on the main dispatch queue.
extern int _dispatch_get_main_queue_handle_4CF(void);
/// Drains the main dispatch queue; must be called on the main thread.
extern void _dispatch_main_queue_callback_4CF(void *msg);

// MARK: GObject casts

static inline GObject *gbg_object(gpointer p) { return G_OBJECT(p); }
static inline GtkWidget *gbg_widget(gpointer p) { return GTK_WIDGET(p); }
static inline GtkWindow *gbg_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkContainer *gbg_container(gpointer p) { return GTK_CONTAINER(p); }
static inline GtkBox *gbg_box(gpointer p) { return GTK_BOX(p); }
static inline GtkInfoBar *gbg_info_bar(gpointer p) { return GTK_INFO_BAR(p); }
static inline GtkLabel *gbg_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkStack *gbg_stack(gpointer p) { return GTK_STACK(p); }
static inline GtkButton *gbg_button(gpointer p) { return GTK_BUTTON(p); }
static inline GtkSpinner *gbg_spinner(gpointer p) { return GTK_SPINNER(p); }
static inline GtkMessageDialog *gbg_message_dialog(gpointer p) { return GTK_MESSAGE_DIALOG(p); }
static inline GtkDialog *gbg_dialog(gpointer p) { return GTK_DIALOG(p); }
static inline GtkImage *gbg_image(gpointer p) { return GTK_IMAGE(p); }
static inline GtkScrolledWindow *gbg_scrolled_window(gpointer p) { return GTK_SCROLLED_WINDOW(p); }
static inline GtkBin *gbg_bin(gpointer p) { return GTK_BIN(p); }
static inline GtkFrame *gbg_frame(gpointer p) { return GTK_FRAME(p); }
static inline WebKitWebContext *gbg_web_context(gpointer p) { return WEBKIT_WEB_CONTEXT(p); }
static inline WebKitWebsiteDataManager *gbg_website_data_manager(gpointer p) { return WEBKIT_WEBSITE_DATA_MANAGER(p); }
static inline GTlsCertificate *gbg_tls_certificate(gpointer p) { return G_TLS_CERTIFICATE(p); }
static inline WebKitWebView *gbg_web_view(gpointer p) { return WEBKIT_WEB_VIEW(p); }
static inline WebKitNavigationPolicyDecision *gbg_navigation_policy_decision(gpointer p) {
    return WEBKIT_NAVIGATION_POLICY_DECISION(p);
}
static inline WebKitResponsePolicyDecision *gbg_response_policy_decision(gpointer p) {
    return WEBKIT_RESPONSE_POLICY_DECISION(p);
}
static inline WebKitPolicyDecision *gbg_policy_decision(gpointer p) { return WEBKIT_POLICY_DECISION(p); }

/// A web view in `context` that an automation session (WebDriver) may drive: `is-controlled-by-automation`
/// is construct-only, so it is set here, where the variadic constructor can be called.
static inline WebKitWebView *gbg_web_view_new_for_automation(WebKitWebContext *context) {
    return WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW, "web-context", context, "is-controlled-by-automation",
                                        TRUE, NULL));
}

/// Connects a signal handler whose user data is released by `notify` when the
/// handler is disconnected or the instance is finalized.
static inline gulong gbg_signal_connect(gpointer instance, const char *signal, GCallback handler,
                                        gpointer data, GClosureNotify notify) {
    return g_signal_connect_data(instance, signal, handler, data, notify, (GConnectFlags)0);
}

#endif
