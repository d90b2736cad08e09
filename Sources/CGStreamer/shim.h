#ifndef GBGBRIDGE_CGSTREAMER_SHIM_H
#define GBGBRIDGE_CGSTREAMER_SHIM_H

// GStreamer's object setters are variadic and many of its accessors are macros; Swift imports
// neither. These small wrappers give Swift a typed, non-variadic view of the calls the PipeWire
// capture route makes (pipewiresrc, appsink, the device monitor and its bus).

#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

static inline int cgst_init_check(void) {
    GError *error = NULL;
    gboolean ok = gst_init_check(NULL, NULL, &error);
    if (error != NULL) g_error_free(error);
    return ok ? 1 : 0;
}

static inline void cgst_set_string(gpointer object, const char *property, const char *value) {
    g_object_set(object, property, value, NULL);
}

static inline void cgst_set_int(gpointer object, const char *property, int value) {
    g_object_set(object, property, value, NULL);
}

static inline void cgst_set_uint(gpointer object, const char *property, unsigned int value) {
    g_object_set(object, property, value, NULL);
}

static inline void cgst_set_bool(gpointer object, const char *property, int value) {
    g_object_set(object, property, (gboolean)(value != 0), NULL);
}

static inline void cgst_set_caps(gpointer object, const char *property, const char *caps_text) {
    GstCaps *caps = gst_caps_from_string(caps_text);
    g_object_set(object, property, caps, NULL);
    if (caps != NULL) gst_caps_unref(caps);
}

static inline void cgst_object_unref(gpointer object) {
    if (object != NULL) gst_object_unref(object);
}

static inline GstElement *cgst_bin_get(GstElement *bin, const char *name) {
    return gst_bin_get_by_name(GST_BIN(bin), name);
}

static inline GstBus *cgst_element_bus(GstElement *element) {
    return gst_element_get_bus(element);
}

/// Sets the state and waits up to `timeout_ms` for it to settle: 1 success (or live no-preroll),
/// 0 failure, -1 still changing.
static inline int cgst_set_state(GstElement *element, GstState state, int timeout_ms) {
    GstStateChangeReturn result = gst_element_set_state(element, state);
    if (result == GST_STATE_CHANGE_FAILURE) return 0;
    if (result == GST_STATE_CHANGE_ASYNC && timeout_ms > 0) {
        result = gst_element_get_state(element, NULL, NULL, (GstClockTime)timeout_ms * GST_MSECOND);
        if (result == GST_STATE_CHANGE_FAILURE) return 0;
        if (result == GST_STATE_CHANGE_ASYNC) return -1;
    }
    return 1;
}

// MARK: Messages

static inline GstMessageType cgst_message_type(GstMessage *message) {
    return GST_MESSAGE_TYPE(message);
}

/// The error's domain as 1 resource, 2 stream, 3 core, 4 library, 0 other; its code, and its texts
/// (to be released with g_free).
static inline int cgst_message_error(GstMessage *message, int *code, char **text, char **debug) {
    GError *error = NULL;
    gchar *detail = NULL;
    *code = 0;
    *text = NULL;
    *debug = NULL;
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        gst_message_parse_error(message, &error, &detail);
    } else {
        return -1;
    }
    int domain = 0;
    if (error != NULL) {
        if (error->domain == GST_RESOURCE_ERROR) domain = 1;
        else if (error->domain == GST_STREAM_ERROR) domain = 2;
        else if (error->domain == GST_CORE_ERROR) domain = 3;
        else if (error->domain == GST_LIBRARY_ERROR) domain = 4;
        *code = error->code;
        *text = g_strdup(error->message);
        g_error_free(error);
    }
    *debug = detail;
    return domain;
}

static inline GstDevice *cgst_message_device(GstMessage *message) {
    GstDevice *device = NULL;
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_DEVICE_ADDED) gst_message_parse_device_added(message, &device);
    else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_DEVICE_REMOVED) gst_message_parse_device_removed(message, &device);
    return device;
}

// MARK: Devices

/// A property of a device (from its `GstStructure`), copied (g_free), or NULL.
static inline char *cgst_device_property(GstDevice *device, const char *key) {
    GstStructure *properties = gst_device_get_properties(device);
    if (properties == NULL) return NULL;
    char *value = NULL;
    const GValue *field = gst_structure_get_value(properties, key);
    if (field != NULL) {
        if (G_VALUE_HOLDS_STRING(field)) value = g_value_dup_string(field);
        else value = gst_value_serialize(field);
    }
    gst_structure_free(properties);
    return value;
}

/// The `target-object` (or, on older pipewiresrc, `path`) the device's own element would connect to.
static inline char *cgst_device_target(GstDevice *device) {
    GstElement *element = gst_device_create_element(device, NULL);
    if (element == NULL) return NULL;
    gchar *target = NULL;
    if (g_object_class_find_property(G_OBJECT_GET_CLASS(element), "target-object") != NULL) {
        g_object_get(element, "target-object", &target, NULL);
    }
    if (target == NULL && g_object_class_find_property(G_OBJECT_GET_CLASS(element), "path") != NULL) {
        g_object_get(element, "path", &target, NULL);
    }
    gst_object_unref(element);
    return target;
}

static inline GstCaps *cgst_device_caps(GstDevice *device) {
    return gst_device_get_caps(device);
}

static inline void cgst_caps_unref(GstCaps *caps) {
    if (caps != NULL) gst_caps_unref(caps);
}

static inline int cgst_caps_size(const GstCaps *caps) {
    return caps == NULL ? 0 : (int)gst_caps_get_size(caps);
}

/// Structure `index` of `caps`: 1 raw video, 2 JPEG, 0 other; its format name (static string or NULL);
/// the smallest and largest width and height it allows.
static inline int cgst_caps_entry(
    const GstCaps *caps, int index, const char **format, int *min_width, int *max_width, int *min_height,
    int *max_height) {
    const GstStructure *structure = gst_caps_get_structure(caps, (guint)index);
    const char *name = gst_structure_get_name(structure);
    int kind = 0;
    if (strcmp(name, "video/x-raw") == 0) kind = 1;
    else if (strcmp(name, "image/jpeg") == 0) kind = 2;
    *format = gst_structure_get_string(structure, "format");
    const char *keys[2] = {"width", "height"};
    int *mins[2] = {min_width, min_height};
    int *maxs[2] = {max_width, max_height};
    for (int axis = 0; axis < 2; axis++) {
        const GValue *value = gst_structure_get_value(structure, keys[axis]);
        *mins[axis] = 0;
        *maxs[axis] = 0;
        if (value == NULL) continue;
        if (G_VALUE_HOLDS_INT(value)) {
            *mins[axis] = *maxs[axis] = g_value_get_int(value);
        } else if (GST_VALUE_HOLDS_INT_RANGE(value)) {
            *mins[axis] = gst_value_get_int_range_min(value);
            *maxs[axis] = gst_value_get_int_range_max(value);
        }
    }
    return kind;
}

/// The frame rates structure `index` lists: fills up to `capacity` numerator/denominator pairs and
/// returns how many there are (a range counts as its two ends).
static inline int cgst_caps_rates(const GstCaps *caps, int index, int *numerators, int *denominators, int capacity) {
    const GstStructure *structure = gst_caps_get_structure(caps, (guint)index);
    const GValue *value = gst_structure_get_value(structure, "framerate");
    if (value == NULL) return 0;
    int count = 0;
    if (GST_VALUE_HOLDS_FRACTION(value)) {
        if (count < capacity) {
            numerators[count] = gst_value_get_fraction_numerator(value);
            denominators[count] = gst_value_get_fraction_denominator(value);
        }
        count = 1;
    } else if (GST_VALUE_HOLDS_LIST(value)) {
        guint size = gst_value_list_get_size(value);
        for (guint item = 0; item < size; item++) {
            const GValue *rate = gst_value_list_get_value(value, item);
            if (!GST_VALUE_HOLDS_FRACTION(rate)) continue;
            if (count < capacity) {
                numerators[count] = gst_value_get_fraction_numerator(rate);
                denominators[count] = gst_value_get_fraction_denominator(rate);
            }
            count++;
        }
    } else if (GST_VALUE_HOLDS_FRACTION_RANGE(value)) {
        const GValue *ends[2] = {gst_value_get_fraction_range_min(value), gst_value_get_fraction_range_max(value)};
        for (int end = 0; end < 2; end++) {
            if (count < capacity) {
                numerators[count] = gst_value_get_fraction_numerator(ends[end]);
                denominators[count] = gst_value_get_fraction_denominator(ends[end]);
            }
            count++;
        }
    }
    return count;
}

/// Whether structure `index` of `caps` gives its frame rate as a range (not a value or a list).
static inline int cgst_caps_rate_is_range(const GstCaps *caps, int index) {
    const GstStructure *structure = gst_caps_get_structure(caps, (guint)index);
    const GValue *value = gst_structure_get_value(structure, "framerate");
    return value != NULL && GST_VALUE_HOLDS_FRACTION_RANGE(value) ? 1 : 0;
}

/// Caps parsed from their text form (`gst_caps_from_string`); NULL when the text is not caps.
static inline GstCaps *cgst_caps_from_string(const char *text) { return gst_caps_from_string(text); }

// MARK: Samples

/// Copies the RGB picture of the next sample from `sink` into a new buffer (g_free): its geometry and
/// presentation time (nanoseconds, or -1). Returns NULL at end of stream.
static inline guint8 *cgst_pull_rgb(
    GstAppSink *sink, int *width, int *height, int *stride, gsize *size, gint64 *timestamp) {
    GstSample *sample = gst_app_sink_pull_sample(sink);
    if (sample == NULL) return NULL;
    guint8 *copy = NULL;
    GstVideoInfo info;
    GstCaps *caps = gst_sample_get_caps(sample);
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstMapInfo map;
    if (caps != NULL && buffer != NULL && gst_video_info_from_caps(&info, caps)
        && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
        *width = GST_VIDEO_INFO_WIDTH(&info);
        *height = GST_VIDEO_INFO_HEIGHT(&info);
        *stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
        gsize needed = (gsize)(*stride) * (gsize)(*height);
        *size = needed <= map.size ? needed : map.size;
        copy = g_malloc(*size > 0 ? *size : 1);
        memcpy(copy, map.data, *size);
        *timestamp = GST_BUFFER_PTS_IS_VALID(buffer) ? (gint64)GST_BUFFER_PTS(buffer) : -1;
        gst_buffer_unmap(buffer, &map);
    } else {
        *width = *height = *stride = 0;
        *size = 0;
        *timestamp = -1;
        copy = g_malloc(1);
    }
    gst_sample_unref(sample);
    return copy;
}

static inline int cgst_has_element(const char *name) {
    GstElementFactory *factory = gst_element_factory_find(name);
    if (factory == NULL) return 0;
    gst_object_unref(factory);
    return 1;
}

static inline GstDeviceProvider *cgst_pipewire_provider(void) {
    return gst_device_provider_factory_get_by_name("pipewiredeviceprovider");
}

static inline void cgst_free(gpointer memory) {
    g_free(memory);
}

static inline gint64 cgst_monotonic_microseconds(void) {
    return g_get_monotonic_time();
}

// MARK: Buses and sinks

/// Waits (without a timeout) for the next message of `types` on `bus`; NULL if the bus is flushing.
static inline GstMessage *cgst_bus_wait(GstBus *bus, GstMessageType types) {
    return gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE, types | GST_MESSAGE_APPLICATION);
}

/// Posts the application message that ends a ``cgst_bus_wait`` loop.
static inline void cgst_bus_post_stop(GstBus *bus) {
    gst_bus_post(bus, gst_message_new_application(NULL, gst_structure_new_empty("gbg-stop")));
}

static inline void cgst_message_unref(GstMessage *message) {
    gst_message_unref(message);
}

typedef GstFlowReturn (*cgst_sample_callback)(GstAppSink *sink, gpointer user_data);

/// Calls `callback` on the streaming thread for every new sample of `sink`; `destroy` releases `user_data`.
static inline void cgst_appsink_on_sample(
    GstElement *sink, cgst_sample_callback callback, gpointer user_data, GDestroyNotify destroy) {
    GstAppSinkCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.new_sample = callback;
    gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, user_data, destroy);
}

/// Removes the callbacks of `sink`, calling the destroy notify of the ones set (no sample callback runs after).
static inline void cgst_appsink_clear_callbacks(GstElement *sink) {
    GstAppSinkCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, NULL, NULL);
}

static inline int cgst_is_pipewire_device(GstDevice *device) {
    return device != NULL && strcmp(G_OBJECT_TYPE_NAME(device), "GstPipeWireDevice") == 0;
}

static inline GstDeviceMonitor *cgst_video_source_monitor(void) {
    GstDeviceMonitor *monitor = gst_device_monitor_new();
    gst_device_monitor_add_filter(monitor, "Video/Source", NULL);
    return monitor;
}

#endif
