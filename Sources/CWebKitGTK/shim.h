#ifndef GBGBRIDGE_CWEBKITGTK_SHIM_H
#define GBGBRIDGE_CWEBKITGTK_SHIM_H
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <glib-unix.h>
#endif
