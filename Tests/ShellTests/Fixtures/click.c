// click DISPLAY X Y [COUNT [INTERVAL_MS]]: clicks the primary button at X, Y of the screen COUNT
// times (default 1), INTERVAL_MS apart (default 400), through XTest: real input, as a person's
// mouse gives it, so a page sees a user gesture.
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: click DISPLAY X Y [COUNT [INTERVAL_MS]]\n");
        return 2;
    }
    Display *display = XOpenDisplay(argv[1]);
    if (display == NULL) {
        fprintf(stderr, "click: cannot open display %s\n", argv[1]);
        return 1;
    }
    int event, error, major, minor;
    if (!XTestQueryExtension(display, &event, &error, &major, &minor)) {
        fprintf(stderr, "click: the X server has no XTest extension\n");
        return 1;
    }
    int count = argc > 4 ? atoi(argv[4]) : 1;
    int interval = argc > 5 ? atoi(argv[5]) : 400;
    XTestFakeMotionEvent(display, -1, atoi(argv[2]), atoi(argv[3]), CurrentTime);
    XSync(display, False);
    for (int i = 0; i < count; i++) {
        if (i > 0) usleep((useconds_t)interval * 1000);
        XTestFakeButtonEvent(display, 1, True, CurrentTime);
        XTestFakeButtonEvent(display, 1, False, CurrentTime);
        XSync(display, False);
    }
    XCloseDisplay(display);
    return 0;
}
