// The C boundary to zlib. Only Sources/ArchiveIO/_Zlib.swift calls into it.
#ifndef SMSFILTER_CZLIB_SHIM_H
#define SMSFILTER_CZLIB_SHIM_H
#include <zlib.h>
#endif
