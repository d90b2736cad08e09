// close-window DISPLAY PID: asks every mapped top-level window of process PID to close, the way
// a window manager does when the user clicks the close button (a WM_DELETE_WINDOW client
// message). Waits up to 20 s for such a window. Exit status 0 once at least one was asked.
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long process_of(Display *display, Window window, Atom pid_atom) {
    Atom type;
    int format;
    unsigned long count, after;
    unsigned char *data = NULL;
    long pid = -1;
    if (XGetWindowProperty(display, window, pid_atom, 0, 1, False, XA_CARDINAL, &type, &format, &count, &after,
                           &data) == Success && data != NULL) {
        if (count == 1 && format == 32) pid = (long)*(unsigned long *)data;
        XFree(data);
    }
    return pid;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: close-window DISPLAY PID\n");
        return 2;
    }
    Display *display = XOpenDisplay(argv[1]);
    if (display == NULL) {
        fprintf(stderr, "close-window: cannot open display %s\n", argv[1]);
        return 2;
    }
    long pid = atol(argv[2]);
    Atom protocols = XInternAtom(display, "WM_PROTOCOLS", False);
    Atom delete_window = XInternAtom(display, "WM_DELETE_WINDOW", False);
    Atom pid_atom = XInternAtom(display, "_NET_WM_PID", False);
    for (int attempt = 0; attempt < 400; attempt++) {
        Window root_return, parent, *children = NULL;
        unsigned int count = 0;
        int asked = 0;
        if (XQueryTree(display, DefaultRootWindow(display), &root_return, &parent, &children, &count)) {
            for (unsigned int i = 0; i < count; i++) {
                XWindowAttributes attributes;
                if (!XGetWindowAttributes(display, children[i], &attributes)) continue;
                if (attributes.map_state != IsViewable) continue;
                if (process_of(display, children[i], pid_atom) != pid) continue;
                XEvent event = {0};
                event.xclient.type = ClientMessage;
                event.xclient.window = children[i];
                event.xclient.message_type = protocols;
                event.xclient.format = 32;
                event.xclient.data.l[0] = (long)delete_window;
                event.xclient.data.l[1] = CurrentTime;
                XSendEvent(display, children[i], False, NoEventMask, &event);
                asked++;
            }
            if (children != NULL) XFree(children);
        }
        XSync(display, False);
        if (asked > 0) {
            printf("%d\n", asked);
            XCloseDisplay(display);
            return 0;
        }
        usleep(50000);
    }
    fprintf(stderr, "close-window: no mapped window of process %ld\n", pid);
    XCloseDisplay(display);
    return 1;
}
