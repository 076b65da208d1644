// SPDX-License-Identifier: GPL-2.0
/*
 * Page-cache residency of a file: POWERPIN_IOC_RESIDENCY on /dev/powerpin.
 *
 * The page cache of the file the fd reads and maps is walked (on a stacked
 * file system the file a mapping of the fd gets, else d_real_inode(); the
 * permission rule applies to the file the caller opened, and to that file)
 * under RCU with the public xarray API, as filemap_cachestat() does.  No
 * folio is pinned or dereferenced: an unpinned folio may be freed and
 * reused under the walk (the cachestat read-after-free, CVE-2024-26630).
 * Everything reported comes from the xarray itself: the entry's presence and
 * order, whether it is a value (shadow or swap) entry, and its DIRTY and
 * WRITEBACK marks.  A large folio counts once per page it covers inside the
 * range.
 *
 * Input (struct powerpin_residency, uapi/linux/powerpin.h):
 *   size     sizeof the struct as the caller knows it, at least
 *            POWERPIN_RESIDENCY_SIZE_VER0; bytes the kernel does not know
 *            must be zero.  Only min(size, kernel's size) bytes are written.
 *   mode     POWERPIN_RES_COUNTS, POWERPIN_RES_BITMAP or POWERPIN_RES_RUNS.
 *   fd       a regular file open for anything but O_PATH.
 *   flags    must be 0.
 *   offset   page aligned; not rounded.  May equal the file size (empty range).
 *   length   bytes; 0 means to the end of the file.  The range is clipped to
 *            the file size sampled at the start of the call and its end is
 *            rounded up to a whole page.
 *   buf, buf_len
 *            bitmap: bit i (byte i / 8, bit i % 8, least significant bit
 *            first) is set when page (offset / PAGE_SIZE + i) is resident;
 *            needs DIV_ROUND_UP(nr_pages, 8) bytes, trailing bits are zero.
 *            runs: an array of struct powerpin_run, resident runs in bytes,
 *            whole pages, ascending and never adjacent.
 *            counts: ignored.
 *   cursor   runs only.  In: 0 to start at offset, otherwise a page-aligned
 *            byte offset inside the range returned by an earlier call.  Out:
 *            where to resume when buf filled up, 0 when the range is done.
 *
 * Output: nr_pages, nr_resident, nr_dirty, nr_writeback and nr_evicted
 * describe the pages this call walked (in runs mode, from the start or the
 * cursor up to the returned cursor).  nr_runs is the number of runs written.
 * file_size is the i_size the range was clipped to.  size is set to the
 * kernel's sizeof the struct, so a newer caller sees which fields were filled.
 *
 * Errors:
 *   EFAULT     the struct cannot be read or written; buf is NULL in bitmap or
 *              runs mode; buf is not writable.
 *   EINVAL     size smaller than POWERPIN_RESIDENCY_SIZE_VER0; unknown mode;
 *              flags not 0; offset not page aligned; cursor not page aligned
 *              or below offset (a cursor past the end finds nothing).
 *   E2BIG      size larger than the kernel's struct with non-zero bytes in the
 *              part the kernel does not know (or larger than a page).
 *   ENOBUFS    bitmap: buf_len too small for the range (nr_pages and
 *              file_size are still written back so the caller can size buf);
 *              runs: buf_len smaller than one struct powerpin_run.
 *   EOVERFLOW  offset + length larger than LLONG_MAX.
 *   EBADF      fd is not an open file descriptor, or was opened with O_PATH.
 *   EISDIR     fd is a directory.
 *   ESPIPE     fd is a pipe, FIFO or socket.
 *   ENODEV     fd is a device node or another special file.
 *   EOPNOTSUPP the file has no page cache that can be described: hugetlbfs
 *              (cache indexed in huge pages), DAX, or a pseudo file system
 *              with no page cache (proc, sysfs, cgroup, debugfs, tracefs,
 *              securityfs, bpf).
 *   EPERM      the fd is not open for writing and the caller neither owns the
 *              file (nor has CAP_FOWNER) nor has write permission on it, the
 *              rule cachestat follows since CVE-2025-21691.
 *   ENXIO      offset is beyond the end of the file.
 *   EINTR      a fatal signal arrived during a long walk.
 *   ENOMEM     no memory for the one-page bounce buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/powerpin.h>

#include "compat.h"
#include "powerpin.h"

/*
 * Pages per walk chunk: one page of bitmap in bitmap mode, 4 GiB of file
 * otherwise (each such chunk starting at the next index that holds an
 * entry).  RCU is dropped and fatal signals are checked between chunks;
 * inside a chunk the walk pauses whenever a reschedule is due.
 */
#define RESIDENCY_BITMAP_CHUNK	((pgoff_t)PAGE_SIZE * BITS_PER_BYTE)
#define RESIDENCY_CHUNK		((pgoff_t)1 << 20)
/*
 * One past the last page index the page cache can hold.  A 32-bit pgoff_t
 * ends at 16 TiB of 4 KiB pages, while FUSE, NFS, 9p or CIFS may report a
 * larger i_size; no page past it can be cached, so the pages of a range
 * beyond it are counted and answered as not resident, never walked with a
 * truncated index.
 */
#define RESIDENCY_INDEX_END	((u64)ULONG_MAX)
/* Runs buffered in the kernel before they are copied out. */
#define RESIDENCY_KRUNS		(PAGE_SIZE / sizeof(struct powerpin_run))

enum residency_step {
	RESIDENCY_NEXT,		/* entry accounted, go on */
	RESIDENCY_FLUSH,	/* run buffer full: copy it out, resume here */
	RESIDENCY_FULL,		/* user's run buffer full: stop here */
};

struct residency_walk {
	struct address_space *mapping;
	u32 mode;
	struct powerpin_residency *res;	/* counts accumulate here */

	/* bitmap mode: one chunk of bits, page chunk_first is bit 0 */
	unsigned long *bits;		/* little-endian layout, see below */
	pgoff_t chunk_first;
	bool chunk_has_bits;

	/* runs mode */
	struct powerpin_run *kruns;	/* buffered runs, not yet copied out */
	unsigned int nr_kruns;
	u64 nr_runs;			/* closed runs, copied out or buffered */
	u64 max_runs;			/* runs that fit in the user's buffer */
	bool run_open;
	pgoff_t run_first, run_last;
};

/* Caller may query the file: same rule as cachestat after CVE-2025-21691. */
static bool residency_allowed(struct file *file)
{
	if (file->f_mode & FMODE_WRITE)
		return true;
	if (powerpin_file_owner_or_capable(file))
		return true;
	return powerpin_file_may_write(file);
}

/*
 * The file whose page cache @file's mappings use, where a stacked file
 * system hands them to another file, as a reference the caller drops; NULL
 * where that cannot be found this way.  overlayfs and FUSE passthrough
 * (6.9) put their real or backing file in vma->vm_file from ->mmap: for an
 * overlayfs fd opened before a copy-up that is the lower file, which no
 * exported call leads to from the overlay file.  So one page of @file is
 * mapped into the caller's own address space (vm_mmap(), as i915's GEM mmap
 * ioctl does), the file the mapping got is taken, and the page unmapped.
 * The mapping is PROT_NONE: under mlockall(MCL_FUTURE) every new mapping is
 * VM_LOCKED and populated, and a readable one would fault in the very page
 * whose residency is asked (no kernel populates a PROT_NONE one).  Like any
 * mmap, it may update the access time.
 * A stacked file whose own inode has pages cached holds its data itself
 * (ecryptfs), and is left alone: FUSE drops a FOPEN_DIRECT_IO file's cache
 * when it is mapped.  Without an MMU a private file mapping is a copy of
 * the file's data, read in.
 *
 * Returns the file with a reference, NULL where the file's own inode is
 * the answer (not stacked, no ->mmap: it maps nothing else), or an
 * ERR_PTR when the mapping was refused (-EAGAIN: RLIMIT_MEMLOCK under
 * MCL_FUTURE; -EACCES, -EPERM: an LSM; -ENOMEM): the file behind it is then
 * unknown, and the overlay's own inode would be a wrong answer, not a
 * late one.
 */
static struct file *residency_mapped_file(struct file *file)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct file *mapped = NULL;
	unsigned long addr;

	if (!IS_ENABLED(CONFIG_MMU) || !mm || !(file->f_mode & FMODE_READ) ||
	    !powerpin_file_is_stacked(file) ||
	    READ_ONCE(file_inode(file)->i_mapping->nrpages))
		return NULL;
	addr = vm_mmap(file, 0, PAGE_SIZE, PROT_NONE, MAP_PRIVATE, 0);
	if (addr == (unsigned long)-ENODEV)
		return NULL;
	if (IS_ERR_VALUE(addr))
		return ERR_PTR((long)addr);
	powerpin_mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	/* another thread of the caller may have replaced it meanwhile */
	if (vma && vma->vm_start == addr && vma->vm_end == addr + PAGE_SIZE &&
	    vma->vm_file)
		mapped = get_file(vma->vm_file);
	powerpin_mmap_read_unlock(mm);
	vm_munmap(addr, PAGE_SIZE);
	return mapped;
}

/*
 * The inode whose page cache holds the data of @file, which the caller may
 * query: the file its mappings use where that is found (*@mapped then
 * holds a reference to drop) and the caller may query that file too,
 * otherwise powerpin_data_inode().  The second check keeps a mapping some
 * other thread put at the address from answering for a file the caller
 * may not query.  An ERR_PTR when the mapping was refused.
 */
static struct inode *residency_data_inode(struct file *file,
					  struct file **mapped)
{
	struct file *m = residency_mapped_file(file);

	*mapped = NULL;
	if (IS_ERR(m))
		return ERR_CAST(m);
	if (m && residency_allowed(m)) {
		*mapped = m;
		return file_inode(m);
	}
	if (m)
		fput(m);
	return powerpin_data_inode(file);
}

/* File systems whose regular files have no page cache to describe. */
static const unsigned long residency_pseudo_fs[] = {
	PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
	DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC,
};

/*
 * Whether @inode (the inode holding @file's data) has a page cache this
 * ioctl can describe, as an errno.
 */
static int residency_check_file(struct file *file, struct inode *inode)
{
	umode_t mode = file_inode(file)->i_mode;
	unsigned int i;

	if (S_ISDIR(mode))
		return -EISDIR;
	if (S_ISFIFO(mode) || S_ISSOCK(mode))
		return -ESPIPE;
	if (!S_ISREG(mode) || !S_ISREG(inode->i_mode))
		return -ENODEV;
	/*
	 * hugetlbfs indexes its cache in huge pages.  is_file_hugepages() is
	 * not usable from a module on 6.1 (it references unexported symbols),
	 * and a hugetlbfs file (memfd MFD_HUGETLB included) is known by its
	 * superblock on every kernel.
	 */
	if (inode->i_sb->s_magic == HUGETLBFS_MAGIC || IS_DAX(inode))
		return -EOPNOTSUPP;
	/*
	 * Pseudo file systems never cache file data, so an answer would be
	 * made up.  Most give their inodes empty_aops; kernfs (sysfs, cgroup)
	 * uses ram_aops on 6.1, so those are known by their superblock.
	 */
	if (!inode->i_mapping || powerpin_no_aops(inode->i_mapping->a_ops))
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(residency_pseudo_fs); i++)
		if (inode->i_sb->s_magic == residency_pseudo_fs[i])
			return -EOPNOTSUPP;
	return 0;
}

static void residency_close_run(struct residency_walk *w)
{
	struct powerpin_run *run = &w->kruns[w->nr_kruns++];

	run->offset = (u64)w->run_first << PAGE_SHIFT;
	run->length = (u64)(w->run_last - w->run_first + 1) << PAGE_SHIFT;
	w->nr_runs++;
	w->run_open = false;
}

/* Add resident pages [@first, @last] to the runs, merging adjacent ones. */
static enum residency_step residency_add_run(struct residency_walk *w,
					     pgoff_t first, pgoff_t last)
{
	if (w->run_open && first == w->run_last + 1) {
		w->run_last = last;
		return RESIDENCY_NEXT;
	}
	if (w->run_open) {
		/* the open run and the new one both need a slot */
		if (w->nr_runs + 2 > w->max_runs)
			return RESIDENCY_FULL;
		if (w->nr_kruns == RESIDENCY_KRUNS)
			return RESIDENCY_FLUSH;
		residency_close_run(w);
	} else if (w->nr_runs + 1 > w->max_runs) {
		return RESIDENCY_FULL;
	}
	w->run_open = true;
	w->run_first = first;
	w->run_last = last;
	return RESIDENCY_NEXT;
}

/*
 * The bitmap is little-endian: bit i is bit i % 8 of byte i / 8, whatever the
 * CPU.  __set_bit_le() gives that layout.
 */

/* Set bits for resident pages [@first, @first + @nr) of the chunk. */
static void residency_set_bits(struct residency_walk *w, pgoff_t first, pgoff_t nr)
{
	pgoff_t i;

	for (i = first; i < first + nr; i++)
		__set_bit_le(i - w->chunk_first, w->bits);
	w->chunk_has_bits = true;
}

/*
 * Account resident or evicted pages [@first, @last] of one entry.  Returns
 * RESIDENCY_NEXT, or why the walk has to stop before @first (runs mode).
 */
static enum residency_step residency_account(struct residency_walk *w,
					     pgoff_t first, pgoff_t last,
					     bool value)
{
	struct powerpin_residency *res = w->res;
	pgoff_t nr = last - first + 1;

	if (value) {
		/* shadow of an evicted page, or shmem swap entry */
		res->nr_evicted += nr;
		return RESIDENCY_NEXT;
	}
	if (w->mode == POWERPIN_RES_RUNS) {
		enum residency_step step = residency_add_run(w, first, last);

		if (step != RESIDENCY_NEXT)
			return step;
	} else if (w->mode == POWERPIN_RES_BITMAP) {
		residency_set_bits(w, first, nr);
	}
	res->nr_resident += nr;
	return RESIDENCY_NEXT;
}

/*
 * The pages of the entry @xas points at, clipped to [@first, @last].  A
 * multi-index entry (large folio) is found from any index it covers; its
 * extent comes from the xarray (the entry's index and order), never from
 * the folio, which is not pinned and must not be dereferenced.
 */
static void residency_extent(struct powerpin_xa_state *xas, pgoff_t first, pgoff_t last,
			     pgoff_t *entry_first, pgoff_t *entry_last)
{
	unsigned int order = powerpin_xas_order(xas);
	pgoff_t start = round_down(xas->xa_index, 1UL << order);

	*entry_first = max(start, first);
	*entry_last = min(start + (1UL << order) - 1, last);
}

/* Leave RCU for a moment when a reschedule is due (filemap_cachestat()). */
static void residency_resched(struct powerpin_xa_state *xas)
{
	if (need_resched()) {
		powerpin_xas_pause(xas);
		rcu_read_unlock();
		cond_resched();
		rcu_read_lock();
	}
}

/*
 * Walk pages [@first, @last] of the page cache under RCU with the public
 * xarray API, as filemap_cachestat() does: presence, order, value entries
 * and the DIRTY and WRITEBACK marks of each entry in one pass, so dirty and
 * writeback pages are always a part of the resident ones.  Returns the
 * index the walk stopped at (@last + 1 when it covered the whole span) and
 * the reason in @step.
 */
static pgoff_t residency_walk_span(struct residency_walk *w, pgoff_t first,
				   pgoff_t last, enum residency_step *step)
{
	POWERPIN_XA_STATE(xas, powerpin_page_cache(w->mapping), first);
	pgoff_t stop = last + 1, entry_first, entry_last;
	pgoff_t next = first;	/* the first index not yet accounted */
	void *entry;

	*step = RESIDENCY_NEXT;
	rcu_read_lock();
	powerpin_xas_for_each(&xas, entry, last) {
		bool value;

		/* Never dereference @entry: the folio is not pinned. */
		if (powerpin_xas_retry(&xas, entry))
			continue;
		/*
		 * A folio that grew into a large one behind the walk (or
		 * entries a concurrent split or merge moved) can be met again
		 * from an index past its start: count each index once.
		 */
		residency_extent(&xas, next, last, &entry_first, &entry_last);
		if (entry_first > entry_last)
			continue;
		next = entry_last + 1;
		value = powerpin_xa_is_value(entry);
		*step = residency_account(w, entry_first, entry_last, value);
		if (*step != RESIDENCY_NEXT) {
			stop = entry_first;
			break;
		}
		if (!value && powerpin_xas_get_mark(&xas, PAGECACHE_TAG_DIRTY))
			w->res->nr_dirty += entry_last - entry_first + 1;
		if (!value && powerpin_xas_get_mark(&xas, PAGECACHE_TAG_WRITEBACK))
			w->res->nr_writeback += entry_last - entry_first + 1;
		residency_resched(&xas);
	}
	rcu_read_unlock();

	w->res->nr_pages += stop - first;
	return stop;
}

/*
 * The first index in [@first, @last] that holds an entry of any kind
 * (folio, shadow or swap), or @last + 1 when there is none.  xas_find()
 * skips whole empty subtrees, so the unpopulated part of a sparse file
 * costs a few node visits instead of one walk chunk per 4 GiB.
 */
static pgoff_t residency_next_entry(struct address_space *mapping,
				    pgoff_t first, pgoff_t last)
{
	POWERPIN_XA_STATE(xas, powerpin_page_cache(mapping), first);
	pgoff_t next = last + 1;
	void *entry;

	rcu_read_lock();
	do {
		entry = powerpin_xas_find(&xas, last);
	} while (powerpin_xas_retry(&xas, entry));
	if (entry)
		next = max(xas.xa_index, first);
	rcu_read_unlock();
	return next;
}

static int residency_flush_runs(struct residency_walk *w)
{
	u64 done = w->nr_runs - w->nr_kruns;
	void __user *dst = u64_to_user_ptr(w->res->buf) +
			   done * sizeof(struct powerpin_run);

	if (copy_to_user(dst, w->kruns, w->nr_kruns * sizeof(*w->kruns)))
		return -EFAULT;
	w->nr_kruns = 0;
	return 0;
}

/* Copy the bits of the chunk just walked (@nr pages) to the user's bitmap. */
static int residency_copy_bits(struct residency_walk *w, pgoff_t range_first,
			       pgoff_t nr)
{
	void __user *dst = u64_to_user_ptr(w->res->buf) +
			   (w->chunk_first - range_first) / BITS_PER_BYTE;
	size_t bytes = DIV_ROUND_UP(nr, BITS_PER_BYTE);

	/* nothing resident: one pass over the user's memory, not two */
	if (!w->chunk_has_bits)
		return clear_user(dst, bytes) ? -EFAULT : 0;
	if (copy_to_user(dst, w->bits, bytes))
		return -EFAULT;
	return 0;
}

/*
 * Walk pages [@first, @end) in chunks, dropping RCU between them; on return
 * res->cursor is set for runs mode.
 */
static int residency_walk_chunks(struct residency_walk *w, pgoff_t first, pgoff_t end)
{
	enum residency_step step = RESIDENCY_NEXT;
	pgoff_t pos = first;
	int ret = 0;

	while (pos < end) {
		pgoff_t chunk = w->mode == POWERPIN_RES_BITMAP ?
				RESIDENCY_BITMAP_CHUNK : RESIDENCY_CHUNK;
		pgoff_t chunk_last, stop;

		/*
		 * Counts and runs go straight to the next entry: pages with
		 * none are walked but hold nothing to report.  Bitmap mode
		 * has to write every chunk's bits anyway, and its range is
		 * bounded by the caller's buffer.
		 */
		if (w->mode != POWERPIN_RES_BITMAP) {
			pgoff_t next = residency_next_entry(w->mapping, pos, end - 1);

			w->res->nr_pages += next - pos;
			pos = next;
			if (pos >= end)
				break;
		}
		/* pos + chunk would wrap a 32-bit pgoff_t near the largest file */
		chunk_last = end - pos > chunk ? pos + chunk - 1 : end - 1;
		if (w->mode == POWERPIN_RES_BITMAP) {
			w->chunk_first = pos;
			w->chunk_has_bits = false;
			bitmap_zero(w->bits, chunk_last - pos + 1);
		}
		stop = residency_walk_span(w, pos, chunk_last, &step);

		if (w->mode == POWERPIN_RES_BITMAP)
			ret = residency_copy_bits(w, first, stop - pos);
		else if (step == RESIDENCY_FLUSH)
			ret = residency_flush_runs(w);
		if (ret)
			return ret;
		pos = stop;
		if (step == RESIDENCY_FULL)
			break;
		if (pos < end && fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}

	if (w->mode != POWERPIN_RES_RUNS)
		return 0;
	if (w->run_open) {
		if (w->nr_kruns == RESIDENCY_KRUNS) {
			ret = residency_flush_runs(w);
			if (ret)
				return ret;
		}
		residency_close_run(w);
	}
	ret = residency_flush_runs(w);
	if (ret)
		return ret;
	w->res->nr_runs = w->nr_runs;
	w->res->cursor = step == RESIDENCY_FULL ? (u64)pos << PAGE_SHIFT : 0;
	return 0;
}

/*
 * Pages [@from, @end) of the range that starts at page @first lie beyond
 * RESIDENCY_INDEX_END: walked, none resident; their bitmap bits are zero.
 */
static int residency_beyond(struct residency_walk *w, u64 first, u64 from,
			    u64 end)
{
	u64 pos = DIV_ROUND_UP_ULL(from - first, BITS_PER_BYTE);
	u64 last = DIV_ROUND_UP_ULL(end - first, BITS_PER_BYTE);
	size_t len;

	w->res->nr_pages += end - from;
	if (w->mode != POWERPIN_RES_BITMAP)
		return 0;
	for (; pos < last; pos += len) {
		len = min_t(u64, last - pos, SZ_1M);
		if (clear_user(u64_to_user_ptr(w->res->buf + pos), len))
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Walk pages [@first, @end) (page numbers of the file, 64-bit): the part
 * the page cache can index, then the part beyond it.
 */
static int residency_walk_range(struct residency_walk *w, u64 first, u64 end)
{
	u64 limit = RESIDENCY_INDEX_END;
	int ret;

	ret = residency_walk_chunks(w, min(first, limit), min(end, limit));
	/* runs mode stopped early (its buffer filled): the rest is to come */
	if (ret || w->res->cursor || end <= limit)
		return ret;
	return residency_beyond(w, first, max(first, limit), end);
}

/* Checks that need only the argument, before the fd is looked at. */
static int residency_check_args(const struct powerpin_residency *res)
{
	if (res->flags)
		return -EINVAL;
	switch (res->mode) {
	case POWERPIN_RES_COUNTS:
		break;
	case POWERPIN_RES_BITMAP:
		if (!res->buf)
			return -EFAULT;
		break;
	case POWERPIN_RES_RUNS:
		if (!res->buf)
			return -EFAULT;
		if (res->buf_len < sizeof(struct powerpin_run))
			return -ENOBUFS;
		break;
	default:
		return -EINVAL;
	}
	if (!PAGE_ALIGNED(res->offset))
		return -EINVAL;
	if (res->offset > LLONG_MAX || res->length > LLONG_MAX - res->offset)
		return -EOVERFLOW;
	return 0;
}

/* The walk's one-page buffer its mode needs: runs or bits. */
static int residency_alloc(struct residency_walk *w)
{
	if (w->mode == POWERPIN_RES_RUNS) {
		w->max_runs = w->res->buf_len / sizeof(struct powerpin_run);
		w->kruns = kmalloc(PAGE_SIZE, GFP_KERNEL);
		return w->kruns ? 0 : -ENOMEM;
	}
	if (w->mode == POWERPIN_RES_BITMAP) {
		w->bits = kmalloc(PAGE_SIZE, GFP_KERNEL);
		return w->bits ? 0 : -ENOMEM;
	}
	return 0;
}

static int residency_query(struct powerpin_residency *res)
{
	struct residency_walk w = { .mode = res->mode, .res = res };
	u64 first, end_index;	/* page numbers, not pgoff_t: see above */
	struct file *file, *mapped = NULL;
	struct inode *inode;
	loff_t size;
	u64 end;
	int ret;

	res->nr_pages = 0;
	res->nr_resident = 0;
	res->nr_dirty = 0;
	res->nr_writeback = 0;
	res->nr_evicted = 0;
	res->nr_runs = 0;
	res->file_size = 0;

	file = fget(res->fd);	/* NULL for O_PATH descriptors too */
	if (!file)
		return -EBADF;
	ret = residency_check_file(file, powerpin_data_inode(file));
	if (!ret && !residency_allowed(file))
		ret = -EPERM;
	if (ret)
		goto out_fput;
	/* stacked files: the pages are the real file's, the rights the caller's */
	inode = residency_data_inode(file, &mapped);
	ret = IS_ERR(inode) ? PTR_ERR(inode) : residency_check_file(file, inode);
	if (ret)
		goto out_fput;

	size = i_size_read(inode);
	res->file_size = size;
	if (res->offset > (u64)size) {
		ret = -ENXIO;
		goto out_fput;
	}
	end = res->length ? min_t(u64, res->offset + res->length, size) : (u64)size;
	first = res->offset >> PAGE_SHIFT;
	end_index = DIV_ROUND_UP_ULL(end, PAGE_SIZE);	/* exclusive */

	if (res->mode == POWERPIN_RES_BITMAP &&
	    res->buf_len < DIV_ROUND_UP_ULL(end_index - first, BITS_PER_BYTE)) {
		res->nr_pages = end_index - first;
		ret = -ENOBUFS;
		goto out_fput;
	}
	if (res->mode == POWERPIN_RES_RUNS && res->cursor) {
		if (!PAGE_ALIGNED(res->cursor) || res->cursor < res->offset) {
			ret = -EINVAL;
			goto out_fput;
		}
		/* a cursor past a range that shrank since just finds nothing */
		first = min_t(u64, res->cursor >> PAGE_SHIFT, end_index);
	}

	ret = residency_alloc(&w);
	if (ret)
		goto out_fput;

	w.mapping = inode->i_mapping;
	res->cursor = 0;
	ret = residency_walk_range(&w, first, end_index);

	kfree(w.bits);
	kfree(w.kruns);
out_fput:
	if (mapped)
		fput(mapped);
	fput(file);
	return ret;
}

long powerpin_residency_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct powerpin_residency res;
	u32 usize;
	int ret;

	BUILD_BUG_ON(sizeof(res) != POWERPIN_RESIDENCY_SIZE_VER0);

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < POWERPIN_RESIDENCY_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = powerpin_copy_struct_from_user(&res, sizeof(res), uarg, usize);
	if (ret)
		return ret;

	ret = residency_check_args(&res);
	if (ret)
		return ret;
	ret = residency_query(&res);
	if (ret && ret != -ENOBUFS)
		return ret;
	res.size = sizeof(res);
	if (copy_to_user(uarg, &res, min_t(size_t, usize, sizeof(res))))
		return -EFAULT;
	return ret;
}
