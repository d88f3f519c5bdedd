/*
 * crc32c.h: CRC-32C (Castagnoli), the checksum of frames, shards and models.
 */
#ifndef PS_CRC32C_H
#define PS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * Extend crc (0 to start) over len bytes of buf.  Uses the SSE4.2 crc32
 * instruction when the CPU has it, a table otherwise; both give the same
 * value (crc32c("123456789") == 0xe3069283).
 */
uint32_t	ps_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
