/*
 * The floor for the transport benchmark: the smallest WebKitGTK host doing the
 * same work as the Swift stack on the same page. Messages arrive in the main
 * world's "gbgBridge" handler (no origin relay), fields are read straight from
 * the JSCValue (no JSON round trip) and replies are preformatted strings.
 * Prints the same "name value" lines as gbgbridge-webkit-bench.
 *
 * With --strings the page posts JSON text instead of objects (the way
 * webview/webview hosts do), to a "gbgBridgeText" handler, and the host parses
 * it with jsc_value_new_from_json before reading the same fields.
 *
 * Usage: gbgbridge-c-floor [--strings] <bench-page.html>   (under xvfb-run)
 */
#include <webkit2/webkit2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EVENT_COUNT 10000
#define ROUND_TRIPS 2000
#define BIG_BYTES (20 << 20)
#define BASE_URI "http://bench.invalid/"

static WebKitWebView *view;
static double started_at;
static double *arrivals;
static int arrival_count;
static int measuring_round_trips;
static int round_trip_reports;
static int ticks_received, ticks_in_order;
static double phase_start;
static char *big_payload;
static double big_times[3];
static int big_count;
static double big_request_times[3];
static int big_request_count;
static int post_strings;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static void evaluate(const char *script) {
    webkit_web_view_evaluate_javascript(view, script, -1, NULL, NULL, NULL, NULL, NULL);
}

static char *string_property(JSCValue *object, const char *name) {
    JSCValue *value = jsc_value_object_get_property(object, name);
    char *text = jsc_value_is_undefined(value) ? NULL : jsc_value_to_string(value);
    g_object_unref(value);
    return text;
}

static double number_property(JSCValue *object, const char *name) {
    JSCValue *value = jsc_value_object_get_property(object, name);
    double number = jsc_value_to_double(value);
    g_object_unref(value);
    return number;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void respond(const char *id, const char *action, const char *data) {
    char *script = g_strdup_printf(
        "window.GBGBridge.receive({\"version\":\"1.0\",\"correlationId\":\"%s\",\"type\":\"response\","
        "\"timestamp\":%.0f,\"payload\":{\"action\":\"%s\",\"status\":\"success\",\"data\":%s}})",
        id, now_ms(), action, data);
    evaluate(script);
    g_free(script);
}

static void on_event(const char *action, JSCValue *data) {
    if (strcmp(action, "bench.domReady") == 0) {
        printf("startup_to_domcontentloaded_ms %.3f\n", now_ms() - started_at);
        evaluate("bench.roundTrips(100)");
    } else if (strcmp(action, "bench.roundTrips") == 0) {
        if (++round_trip_reports == 1) {
            arrival_count = 0;
            measuring_round_trips = 1;
            evaluate("bench.roundTrips(2000)");
            return;
        }
        measuring_round_trips = 0;
        int n = arrival_count - 1;
        double *periods = malloc(sizeof(double) * n);
        for (int i = 0; i < n; i++) periods[i] = arrivals[i + 1] - arrivals[i];
        qsort(periods, n, sizeof(double), compare_doubles);
        printf("roundtrip_p50_ms %.3f\nroundtrip_p99_ms %.3f\n", periods[n / 2], periods[n * 99 / 100]);
        free(periods);
        ticks_received = 0;
        ticks_in_order = 1;
        phase_start = now_ms();
        evaluate("bench.sendEvents(10000)");
    } else if (strcmp(action, "bench.tick") == 0) {
        if ((int)number_property(data, "i") != ticks_received) ticks_in_order = 0;
        if (++ticks_received == EVENT_COUNT) {
            printf("events_web_to_native_per_s %d\n", (int)(EVENT_COUNT / (now_ms() - phase_start) * 1000));
            printf("events_web_to_native_lost %d\n", ticks_in_order ? 0 : -1);
            phase_start = now_ms();
            for (int i = 0; i < EVENT_COUNT; i++) {
                char *script = g_strdup_printf(
                    "window.GBGBridge.receive({\"version\":\"1.0\",\"correlationId\":\"n-%d\",\"type\":\"event\","
                    "\"timestamp\":%.0f,\"payload\":{\"action\":\"bench.tick\",\"data\":{\"i\":%d}}})",
                    i, now_ms(), i);
                evaluate(script);
                g_free(script);
            }
            evaluate("bench.reportTicks()");
        }
    } else if (strcmp(action, "bench.ticks") == 0) {
        int count = (int)number_property(data, "count");
        printf("events_native_to_web_per_s %d\n", (int)(EVENT_COUNT / (now_ms() - phase_start) * 1000));
        printf("events_native_to_web_lost %d\n", EVENT_COUNT - count);
        evaluate("bench.big()");
    } else if (strcmp(action, "bench.bigDone") == 0) {
        big_times[big_count++] = number_property(data, "ms");
        if (big_count < 3) {
            evaluate("bench.big()");
            return;
        }
        qsort(big_times, 3, sizeof(double), compare_doubles);
        printf("response_20mib_ms %.3f\n", big_times[1]);
        evaluate("bench.bigRequest()");
    } else if (strcmp(action, "bench.bigRequestDone") == 0) {
        big_request_times[big_request_count++] = number_property(data, "ms");
        if (big_request_count < 3) {
            evaluate("bench.bigRequest()");
            return;
        }
        qsort(big_request_times, 3, sizeof(double), compare_doubles);
        printf("request_60mib_ms %.3f\n", big_request_times[1]);
        fflush(stdout);
        exit(0);
    }
}

static void on_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer user_data) {
    JSCValue *posted = webkit_javascript_result_get_js_value(result);
    JSCValue *message = g_object_ref(posted);
    if (jsc_value_is_string(posted)) {
        char *text = jsc_value_to_string(posted);
        g_object_unref(message);
        message = jsc_value_new_from_json(jsc_value_get_context(posted), text);
        g_free(text);
    }
    char *type = string_property(message, "type");
    char *id = string_property(message, "correlationId");
    JSCValue *payload = jsc_value_object_get_property(message, "payload");
    char *action = string_property(payload, "action");
    JSCValue *data = jsc_value_object_get_property(payload, "data");
    if (type && action && strcmp(type, "request") == 0) {
        if (strcmp(action, "capability.query") == 0) {
            if (measuring_round_trips) arrivals[arrival_count++] = now_ms();
            respond(id, action, "{\"environment\":\"linux\",\"hostVersion\":\"1.0.0\",\"capabilities\":{}}");
        } else if (strcmp(action, "bench.big") == 0) {
            respond(id, action, big_payload);
        }
    } else if (type && action) {
        on_event(action, data);
    }
    g_object_unref(data);
    g_object_unref(payload);
    g_free(action);
    g_free(id);
    g_free(type);
    g_object_unref(message);
}

int main(int argc, char **argv) {
    started_at = now_ms();
    post_strings = argc == 3 && strcmp(argv[1], "--strings") == 0;
    if (argc != 2 + post_strings) {
        fprintf(stderr, "usage: %s [--strings] <bench-page.html>\n", argv[0]);
        return 2;
    }
    const char *page_path = argv[1 + post_strings];
    if (!gtk_init_check(&argc, &argv)) {
        fprintf(stderr, "error: no display (run under xvfb-run)\n");
        return 1;
    }
    char *page = NULL;
    if (!g_file_get_contents(page_path, &page, NULL, NULL)) {
        fprintf(stderr, "error: cannot read %s\n", page_path);
        return 1;
    }
    arrivals = malloc(sizeof(double) * (ROUND_TRIPS + 1));
    big_payload = malloc(BIG_BYTES + 32);
    strcpy(big_payload, "{\"imageBase64\":\"");
    size_t offset = strlen(big_payload);
    for (size_t i = 0; i < BIG_BYTES; i += 4) memcpy(big_payload + offset + i, "QUJD", 4);
    strcpy(big_payload + offset + BIG_BYTES, "\"}");

    GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_default_size(GTK_WINDOW(window), 800, 600);
    view = WEBKIT_WEB_VIEW(webkit_web_view_new());
    WebKitUserContentManager *manager = webkit_web_view_get_user_content_manager(view);
    WebKitUserScript *bootstrap = webkit_user_script_new(
        post_strings ? "window.GBGBridge = window.GBGBridge || {};"
                       "window.GBGBridge.receive = window.GBGBridge.receive || function(){};"
                       "window.__benchPostsStrings = true;"
                     : "window.GBGBridge = window.GBGBridge || {};"
                       "window.GBGBridge.receive = window.GBGBridge.receive || function(){};",
        WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
    const char *handler = post_strings ? "gbgBridgeText" : "gbgBridge";
    char *signal = g_strconcat("script-message-received::", handler, NULL);
    webkit_user_content_manager_add_script(manager, bootstrap);
    webkit_user_script_unref(bootstrap);
    g_signal_connect(manager, signal, G_CALLBACK(on_message), NULL);
    g_free(signal);
    webkit_user_content_manager_register_script_message_handler(manager, handler);
    gtk_container_add(GTK_CONTAINER(window), GTK_WIDGET(view));
    gtk_widget_show_all(window);
    webkit_web_view_load_html(view, page, BASE_URI);
    g_free(page);
    gtk_main();
    return 0;
}
