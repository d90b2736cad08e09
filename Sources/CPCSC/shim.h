#ifndef GBGBRIDGE_CPCSC_SHIM_H
#define GBGBRIDGE_CPCSC_SHIM_H

#include <PCSC/winscard.h>
#include <PCSC/reader.h>
#include <PCSC/wintypes.h>

/* The protocol control blocks are exported data behind macros that Swift cannot import. */
static inline const SCARD_IO_REQUEST *gbg_pcsc_pci_t0(void) { return SCARD_PCI_T0; }
static inline const SCARD_IO_REQUEST *gbg_pcsc_pci_t1(void) { return SCARD_PCI_T1; }
static inline const SCARD_IO_REQUEST *gbg_pcsc_pci_raw(void) { return SCARD_PCI_RAW; }

#endif
