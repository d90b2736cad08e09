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

// GObject casts are Swift's `gtkCast` (GBGBridgeToolkit/GtkCast.swift), which checks the type.

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
