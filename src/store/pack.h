/*
 * pack.h - many record files of a folder in one file: what a rank wrote of a
 * phase's per-partition outputs, gathered so that a round leaves a few files
 * per rank on the crawl directory's filesystem, not one per partition.
 *
 * A shared filesystem (Lustre, GPFS, NFS) pays its metadata servers for
 * every file, and HPC centres set quotas on the count: a crawl of 256
 * partitions used to leave about a thousand small files a round whatever
 * it fetched. The per-partition files stay the unit a phase writes, reads
 * and re-runs (a phase on another rank count finds the same data); a pack
 * only changes where their bytes live.
 *
 * Members: a file "STEM-IIIII.SUFFIX" of folder F - a record file
 * (recfile.h, SUFFIX "zst") or a decision log (SUFFIX "jsonl.zst") - its
 * id IIIII (a partition). A pack of F is "STEM.TTTTTTTTTTTTTTTT-rRRRR-nNNNN.pack":
 * the members of STEM whose id % NNNN == RRRR, gathered at time T (µs, hex)
 * by rank RRRR of NNNN. Its bytes: each member's bytes as committed, one
 * after another, then a zstd skippable frame (magic 0x184D2A50, u32 size)
 * holding an index of 24 bytes a member (u32 id, u32 zero, u64 offset, u64
 * length), sorted by id, and a trailer of 32 bytes: "MPCRPAK1", u64 member
 * count, u64 index offset and the XXH64 of the index (all little-endian).
 * A member keeps its own checksums; a pack of zstd streams is one zstd
 * stream (zstdcat prints the members one after another).
 *
 * Which copy of a member counts: the loose file if there is one (a re-run
 * writes it after any pack), else the member in the newest pack that holds
 * it. A pack whose every member a newer one holds is dead (pack_prune).
 * recfile_reader_open and recfile_probe look in packs by themselves, so a
 * reader names the loose path whether or not it is packed, and crawl
 * directories from before packs read as they did.
 */
#ifndef CR_STORE_PACK_H
#define CR_STORE_PACK_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/*
 * Gathers rank of nranks' loose members STEM-IIIII.SUFFIX (suffix with its
 * dot: ".zst") in dir (id % nranks ==
 * rank) into a pack stamped now_us: written under a temporary name,
 * synced and renamed, then the loose files are removed. Nothing is written
 * when there is no such member. *n_out (may be NULL) gets how many were
 * gathered. Not collective: every rank gathers its own.
 */
CR_WUR enum cr_err pack_gather(const char *dir, const char *stem, const char *suffix,
			       int rank, int nranks, int64_t now_us, unsigned *n_out);

/* Where member id of STEM in dir lives when it is not a loose file: the
 * pack's path, the member's offset and length. CR_OK, CR_EOF (no pack
 * holds it), CR_ERR_FORMAT (a pack that should be looked at is damaged:
 * logged) or CR_ERR_IO. */
struct pack_member {
	char path[PATH_MAX];
	uint64_t off, len;
};
CR_WUR enum cr_err pack_find(const char *dir, const char *stem, uint32_t id,
			     struct pack_member *m);

/* Splits a member's loose path "DIR/STEM-IIIII.zst" (or .jsonl.zst) into
 * dir, stem, id and suffix (may be NULL; borrowed from path): 1, or 0 when
 * the name is not a member's. */
int pack_member_name(const char *path, char *dir, size_t dcap, char *stem, size_t scap,
		     uint32_t *id, const char **suffix);

/* Removes the packs of STEM in dir that a newer pack or a loose file
 * wholly supersedes. Once a phase is done, on one rank. */
CR_WUR enum cr_err pack_prune(const char *dir, const char *stem, const char *suffix);

/* Checks a pack's trailer and index (not its members): CR_OK or
 * CR_ERR_FORMAT with *why; CR_ERR_IO when it cannot be opened. */
CR_WUR enum cr_err pack_probe(const char *path, const char **why);

#endif
