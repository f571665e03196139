/* SPDX-License-Identifier: ISC */
/*
 * The programs the kernel itself runs when a file is executed, beside
 * the file (promise 8: they are judged as the file is): an ELF file's
 * interpreter (its PT_INTERP, the dynamic loader, looked up from the
 * caller's cwd when relative) and a binfmt_misc handler whose magic or
 * extension matches (the kernel asks those before ELF and #!). A #!
 * line is read in intercept.c.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervise.h"

#define BINFMT_DIR	"/proc/sys/fs/binfmt_misc"
#define PHDRS_MAX	128

/* An ELF file's PT_INTERP into out: 1, 0 when it is not ELF or names
 * none, -1 when its headers cannot be read as the kernel would. */
int
elf_interp(int fd, char *out, size_t size)
{
	unsigned char id[EI_NIDENT];
	uint64_t phoff, off = 0, len = 0;
	unsigned phnum, phentsize, i;
	int is64, found = 0;

	if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id ||
	    memcmp(id, ELFMAG, SELFMAG) != 0)
		return 0;
	if ((is64 = id[EI_CLASS] == ELFCLASS64)) {
		Elf64_Ehdr e;

		if (pread(fd, &e, sizeof e, 0) != (ssize_t)sizeof e)
			return -1;
		phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
		if (phentsize != sizeof(Elf64_Phdr))
			return -1;
	} else if (id[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr e;

		if (pread(fd, &e, sizeof e, 0) != (ssize_t)sizeof e)
			return -1;
		phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
		if (phentsize != sizeof(Elf32_Phdr))
			return -1;
	} else
		return -1;
	if (phnum > PHDRS_MAX)
		return -1;
	for (i = 0; i < phnum && !found; i++) {
		uint64_t at = phoff + (uint64_t)i * phentsize;

		if (is64) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof ph, (off_t)at) != (ssize_t)sizeof ph)
				return -1;
			if ((found = ph.p_type == PT_INTERP))
				off = ph.p_offset, len = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			if (pread(fd, &ph, sizeof ph, (off_t)at) != (ssize_t)sizeof ph)
				return -1;
			if ((found = ph.p_type == PT_INTERP))
				off = ph.p_offset, len = ph.p_filesz;
		}
	}
	if (!found)
		return 0;
	/* the kernel's own bounds: 2 bytes to PATH_MAX, NUL-terminated */
	if (len < 2 || len > size || len > PATH_MAX ||
	    pread(fd, out, (size_t)len, (off_t)off) != (ssize_t)len || out[len - 1] != '\0')
		return -1;
	return 1;
}

/* Two hex digits per byte, as binfmt_misc prints magic and mask. */
static size_t
unhex(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;
	unsigned v;

	while (n < max && sscanf(s + 2 * n, "%2x", &v) == 1)
		out[n++] = (unsigned char)v;
	return n;
}

/* One handler's file: does it match the file (head, name)? Its
 * interpreter into interp. */
static int
entry_matches(int dfd, const char *entry, const unsigned char *head, size_t hlen,
    const char *name, char *interp, size_t size)
{
	char buf[4096], *line, *next, ext[256] = "";
	unsigned char magic[128], mask[128];
	size_t mlen = 0, klen = 0, i;
	unsigned long offset = 0;
	ssize_t n;
	int fd, enabled = 0, match;

	if ((fd = openat(dfd, entry, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	*interp = '\0';
	for (line = buf; line != NULL && *line; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strcmp(line, "enabled") == 0)
			enabled = 1;
		else if (strncmp(line, "interpreter ", 12) == 0)
			snprintf(interp, size, "%s", line + 12);
		else if (strncmp(line, "offset ", 7) == 0)
			offset = strtoul(line + 7, NULL, 10);
		else if (strncmp(line, "magic ", 6) == 0)
			mlen = unhex(line + 6, magic, sizeof magic);
		else if (strncmp(line, "mask ", 5) == 0)
			klen = unhex(line + 5, mask, sizeof mask);
		else if (strncmp(line, "extension .", 11) == 0)
			snprintf(ext, sizeof ext, "%s", line + 11);
	}
	if (!enabled || *interp == '\0')
		return 0;
	if (*ext != '\0') {
		const char *dot = strrchr(name, '.');

		return dot != NULL && strcmp(dot + 1, ext) == 0;
	}
	if (mlen == 0 || offset + mlen > hlen)
		return 0;
	for (i = 0, match = 1; i < mlen && match; i++)
		match = ((head[offset + i] ^ magic[i]) & (i < klen ? mask[i] : 0xff)) == 0;
	return match;
}

/*
 * The binfmt_misc handlers that match the file whose first bytes are
 * head and whose name (as executed) is name: their interpreters, at most
 * max (every match is judged: which one the kernel asks first depends
 * on the order of registration), and how many; 0 when binfmt_misc is
 * absent or off.
 */
int
binfmt_handlers(const unsigned char *head, size_t hlen, const char *name,
    char (*interp)[PATH_MAX], int max)
{
	char status[16] = "";
	struct dirent *d;
	DIR *dir;
	ssize_t n;
	int dfd, fd, found = 0;

	if ((dfd = open(BINFMT_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	if ((fd = openat(dfd, "status", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, status, sizeof status - 1);
		close(fd);
		status[n > 0 ? n : 0] = '\0';
	}
	if (strncmp(status, "enabled", 7) != 0 || (dir = fdopendir(dfd)) == NULL) {
		close(dfd);
		return 0;
	}
	while (found < max && (d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.' && strcmp(d->d_name, "status") != 0 &&
		    strcmp(d->d_name, "register") != 0 && entry_matches(dirfd(dir), d->d_name,
		    head, hlen, name, interp[found], PATH_MAX))
			found++;
	closedir(dir);
	return found;
}
