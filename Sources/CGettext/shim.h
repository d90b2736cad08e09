// gettext and setlocale come with glibc: nothing to link.
#include <libintl.h>
#include <locale.h>
