// press-key DISPLAY KEYSYM [COUNT [INTERVAL_MS]]: presses and releases the key named KEYSYM
// (such as Shift_L) COUNT times (default 1), INTERVAL_MS apart (default 1000), through XTest:
// real input to whichever window has the keyboard focus, as a person's keyboard gives it.
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: press-key DISPLAY KEYSYM [COUNT [INTERVAL_MS]]\n");
        return 2;
    }
    Display *display = XOpenDisplay(argv[1]);
    if (display == NULL) {
        fprintf(stderr, "press-key: cannot open display %s\n", argv[1]);
        return 1;
    }
    int event, error, major, minor;
    if (!XTestQueryExtension(display, &event, &error, &major, &minor)) {
        fprintf(stderr, "press-key: the X server has no XTest extension\n");
        return 1;
    }
    KeySym symbol = XStringToKeysym(argv[2]);
    KeyCode code = symbol == NoSymbol ? 0 : XKeysymToKeycode(display, symbol);
    if (code == 0) {
        fprintf(stderr, "press-key: no key for %s\n", argv[2]);
        return 1;
    }
    int count = argc > 3 ? atoi(argv[3]) : 1;
    int interval = argc > 4 ? atoi(argv[4]) : 1000;
    for (int i = 0; i < count; i++) {
        if (i > 0) usleep((useconds_t)interval * 1000);
        XTestFakeKeyEvent(display, code, True, CurrentTime);
        XTestFakeKeyEvent(display, code, False, CurrentTime);
        XSync(display, False);
    }
    XCloseDisplay(display);
    return 0;
}
