#ifndef GBGBRIDGE_CGSTREAMER_PORTAL_H
#define GBGBRIDGE_CGSTREAMER_PORTAL_H

// The desktop's Camera portal (org.freedesktop.portal.Camera) over GDBus: whether a camera is present,
// asking for access (the portal may show its own dialog and answers with a Request's Response signal),
// and a PipeWire remote restricted to cameras. GVariant's variadic constructors do not reach Swift, so
// these calls live here. Every call is synchronous: run them off the main thread.

#include <stdio.h>
#include <gio/gio.h>

// From <gio/gunixfdlist.h> (gio-unix-2.0, whose include directory GStreamer's flags do not list).
extern gint g_unix_fd_list_get(GUnixFDList *list, gint index_, GError **error);

#define CGST_PORTAL_NAME "org.freedesktop.portal.Desktop"
#define CGST_PORTAL_PATH "/org/freedesktop/portal/desktop"
#define CGST_PORTAL_CAMERA "org.freedesktop.portal.Camera"

// Outcomes of cgst_portal_access_camera, besides the portal's own responses (0 granted, 1 cancelled by
// the person, 2 refused or ended otherwise).
#define CGST_PORTAL_FAILED (-1)
#define CGST_PORTAL_TIMED_OUT (-2)

static inline void cgst_portal_take_error(GError *error, char **message) {
    if (error == NULL) return;
    if (message != NULL && *message == NULL) {
        g_dbus_error_strip_remote_error(error);
        *message = g_strdup(error->message);
    }
    g_error_free(error);
}

/// The session bus (GIO's shared connection), or NULL with `message` set.
static inline GDBusConnection *cgst_portal_bus(char **message) {
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    cgst_portal_take_error(error, message);
    return bus;
}

/// 1 when the portal says a camera is present, 0 when it says none is, -1 when there is no Camera portal
/// (no portal service, or one without a camera backend) with `message` set.
static inline int cgst_portal_camera_present(GDBusConnection *bus, int timeout_ms, char **message) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        bus, CGST_PORTAL_NAME, CGST_PORTAL_PATH, "org.freedesktop.DBus.Properties", "Get",
        g_variant_new("(ss)", CGST_PORTAL_CAMERA, "IsCameraPresent"), G_VARIANT_TYPE("(v)"),
        G_DBUS_CALL_FLAGS_NONE, timeout_ms, NULL, &error);
    if (reply == NULL) {
        cgst_portal_take_error(error, message);
        return -1;
    }
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    int present = -1;
    if (value != NULL && g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN)) {
        present = g_variant_get_boolean(value) ? 1 : 0;
    } else if (message != NULL && *message == NULL) {
        *message = g_strdup("The Camera portal's IsCameraPresent is not a boolean");
    }
    if (value != NULL) g_variant_unref(value);
    g_variant_unref(reply);
    return present;
}

typedef struct {
    int done;
    guint32 response;
} CgstPortalWait;

static inline void cgst_portal_on_response(
    GDBusConnection *bus, const gchar *sender, const gchar *path, const gchar *interface, const gchar *signal,
    GVariant *parameters, gpointer data) {
    (void)bus; (void)sender; (void)path; (void)interface; (void)signal;
    CgstPortalWait *wait = data;
    guint32 response = 2;
    if (g_variant_is_of_type(parameters, G_VARIANT_TYPE("(ua{sv})"))) {
        GVariant *results = NULL;
        g_variant_get(parameters, "(u@a{sv})", &response, &results);
        if (results != NULL) g_variant_unref(results);
    }
    wait->response = response;
    wait->done = 1;
}

static inline gboolean cgst_portal_on_deadline(gpointer data) {
    *(int *)data = 1;
    return G_SOURCE_REMOVE;
}

static inline guint cgst_portal_subscribe(GDBusConnection *bus, const char *path, CgstPortalWait *wait) {
    return g_dbus_connection_signal_subscribe(
        bus, CGST_PORTAL_NAME, "org.freedesktop.portal.Request", "Response", path, NULL,
        G_DBUS_SIGNAL_FLAGS_NONE, cgst_portal_on_response, wait, NULL);
}

/// Asks the portal for camera access (AccessCamera) and waits up to `timeout_ms` for its answer, which may
/// come from a person in the portal's dialog: 0 granted, 1 cancelled, 2 refused, CGST_PORTAL_FAILED (with
/// `message` set) or CGST_PORTAL_TIMED_OUT (the request is then closed).
static inline int cgst_portal_access_camera(GDBusConnection *bus, int timeout_ms, char **message) {
    static gint counter = 0;
    const char *unique = g_dbus_connection_get_unique_name(bus);
    if (unique == NULL || unique[0] != ':') {
        if (message != NULL) *message = g_strdup("The session bus connection has no unique name");
        return CGST_PORTAL_FAILED;
    }
    char token[64];
    snprintf(token, sizeof token, "gbgbridge_camera_%d", g_atomic_int_add(&counter, 1));
    char *sender = g_strdup(unique + 1);
    g_strdelimit(sender, ".", '_');
    char *expected = g_strdup_printf("%s/request/%s/%s", CGST_PORTAL_PATH, sender, token);
    g_free(sender);

    // The Response signal is dispatched to this thread's own context, iterated below.
    GMainContext *context = g_main_context_new();
    g_main_context_push_thread_default(context);
    CgstPortalWait wait = {0, 2};
    // Subscribed before the call, so that an immediate answer is not missed.
    guint subscription = cgst_portal_subscribe(bus, expected, &wait);

    GVariantBuilder options;
    g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add(&options, "{sv}", "handle_token", g_variant_new_string(token));
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        bus, CGST_PORTAL_NAME, CGST_PORTAL_PATH, CGST_PORTAL_CAMERA, "AccessCamera",
        g_variant_new("(a{sv})", &options), G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE,
        timeout_ms, NULL, &error);
    int outcome = CGST_PORTAL_FAILED;
    char *handle = NULL;
    if (reply == NULL) {
        cgst_portal_take_error(error, message);
    } else {
        g_variant_get(reply, "(o)", &handle);
        g_variant_unref(reply);
        if (strcmp(handle, expected) != 0) {
            // An older portal chose its own path: listen there instead.
            g_dbus_connection_signal_unsubscribe(bus, subscription);
            subscription = cgst_portal_subscribe(bus, handle, &wait);
        }
        int expired = 0;
        GSource *deadline = g_timeout_source_new(timeout_ms > 0 ? (guint)timeout_ms : 1);
        g_source_set_callback(deadline, cgst_portal_on_deadline, &expired, NULL);
        g_source_attach(deadline, context);
        while (!wait.done && !expired) g_main_context_iteration(context, TRUE);
        g_source_destroy(deadline);
        g_source_unref(deadline);
        if (wait.done) {
            outcome = (int)wait.response;
        } else {
            outcome = CGST_PORTAL_TIMED_OUT;
            GVariant *closed = g_dbus_connection_call_sync(
                bus, CGST_PORTAL_NAME, handle, "org.freedesktop.portal.Request", "Close", NULL, NULL,
                G_DBUS_CALL_FLAGS_NONE, 1000, NULL, NULL);
            if (closed != NULL) g_variant_unref(closed);
        }
    }
    g_dbus_connection_signal_unsubscribe(bus, subscription);
    g_main_context_pop_thread_default(context);
    // Let the unsubscription's pending callbacks (none touch `wait` after this) run out.
    while (g_main_context_iteration(context, FALSE)) {
    }
    g_main_context_unref(context);
    g_free(handle);
    g_free(expected);
    return outcome;
}

/// A new PipeWire remote that sees only cameras (OpenPipeWireRemote), as a descriptor the caller owns; -1
/// with `message` set, and `not_allowed` set to 1 when the portal refused for want of permission.
static inline int cgst_portal_open_remote(GDBusConnection *bus, int timeout_ms, int *not_allowed, char **message) {
    GVariantBuilder options;
    g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
    GUnixFDList *descriptors = NULL;
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_with_unix_fd_list_sync(
        bus, CGST_PORTAL_NAME, CGST_PORTAL_PATH, CGST_PORTAL_CAMERA, "OpenPipeWireRemote",
        g_variant_new("(a{sv})", &options), G_VARIANT_TYPE("(h)"), G_DBUS_CALL_FLAGS_NONE, timeout_ms,
        NULL, &descriptors, NULL, &error);
    if (not_allowed != NULL) *not_allowed = 0;
    if (reply == NULL) {
        if (not_allowed != NULL && error != NULL) {
            char *remote = g_dbus_error_get_remote_error(error);
            *not_allowed = remote != NULL && strcmp(remote, "org.freedesktop.portal.Error.NotAllowed") == 0;
            g_free(remote);
        }
        cgst_portal_take_error(error, message);
        if (descriptors != NULL) g_object_unref(descriptors);
        return -1;
    }
    gint32 index = -1;
    g_variant_get(reply, "(h)", &index);
    g_variant_unref(reply);
    int fd = -1;
    if (descriptors != NULL) {
        fd = g_unix_fd_list_get(descriptors, index, &error);  // a duplicate the caller owns
        cgst_portal_take_error(error, message);
        g_object_unref(descriptors);
    } else if (message != NULL) {
        *message = g_strdup("The Camera portal sent no descriptor");
    }
    return fd;
}

#endif
