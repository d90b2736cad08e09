// iconify-window DISPLAY TITLE: asks the window manager to iconify the managed window whose title
// contains TITLE, as a pager or the window menu's Iconify does (a WM_CHANGE_STATE message), waits
// two seconds, then prints every managed window as "<WM_STATE> <title>" (1 normal, 3 iconic).
// Waits up to 20 s for such a window. Exit status 0 once one was asked.
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char *property(Display *display, Window window, const char *name, Atom type, unsigned long *count) {
    Atom actual;
    int format;
    unsigned long after;
    unsigned char *data = NULL;
    *count = 0;
    if (XGetWindowProperty(display, window, XInternAtom(display, name, False), 0, 1024, False, type, &actual,
                           &format, count, &after, &data) != Success) {
        return NULL;
    }
    return data;
}

static void title_of(Display *display, Window window, char *title, size_t size) {
    unsigned long count;
    unsigned char *name = property(display, window, "_NET_WM_NAME", XInternAtom(display, "UTF8_STRING", False), &count);
    if (name == NULL) name = property(display, window, "WM_NAME", XA_STRING, &count);
    snprintf(title, size, "%s", name != NULL ? (char *)name : "");
    if (name != NULL) XFree(name);
}

static long state_of(Display *display, Window window) {
    unsigned long count;
    Atom wm_state = XInternAtom(display, "WM_STATE", False);
    unsigned char *data = property(display, window, "WM_STATE", wm_state, &count);
    long state = data != NULL && count > 0 ? (long)*(unsigned long *)data : -1;
    if (data != NULL) XFree(data);
    return state;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: iconify-window DISPLAY TITLE\n");
        return 2;
    }
    Display *display = XOpenDisplay(argv[1]);
    if (display == NULL) {
        fprintf(stderr, "iconify-window: cannot open display %s\n", argv[1]);
        return 1;
    }
    Window root = DefaultRootWindow(display);
    int asked = 0;
    for (int attempt = 0; attempt < 200 && !asked; attempt++) {
        unsigned long count;
        Window *clients = (Window *)property(display, root, "_NET_CLIENT_LIST", XA_WINDOW, &count);
        for (unsigned long i = 0; clients != NULL && i < count; i++) {
            char title[512];
            title_of(display, clients[i], title, sizeof title);
            if (strstr(title, argv[2]) != NULL && state_of(display, clients[i]) == NormalState) {
                XIconifyWindow(display, clients[i], DefaultScreen(display));
                XSync(display, False);
                asked = 1;
                break;
            }
        }
        if (clients != NULL) XFree(clients);
        if (!asked) usleep(100000);
    }
    if (!asked) {
        fprintf(stderr, "iconify-window: no managed window titled \"%s\" appeared\n", argv[2]);
        return 1;
    }
    sleep(2);
    unsigned long count;
    Window *clients = (Window *)property(display, root, "_NET_CLIENT_LIST", XA_WINDOW, &count);
    for (unsigned long i = 0; clients != NULL && i < count; i++) {
        char title[512];
        title_of(display, clients[i], title, sizeof title);
        printf("%ld %s\n", state_of(display, clients[i]), title);
    }
    if (clients != NULL) XFree(clients);
    XCloseDisplay(display);
    return 0;
}
