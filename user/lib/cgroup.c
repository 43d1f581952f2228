// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 paths and ids; see cgroup.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/cgroup.h"

#define CGROUP2_MAGIC 0x63677270u /* CGROUP2_SUPER_MAGIC */
#define CGROUP1_MAGIC 0x27e0ebu   /* CGROUP_SUPER_MAGIC */

int lfr_cgroup2_mount(const char *mountinfo, char *buf, size_t len)
{
	FILE *f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* id parent major:minor root mountpoint options [optional...] - fstype source ...
		 */
		char *sep = strstr(line, " - "), mnt[PATH_MAX], fstype[64];

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		/* mountinfo escapes blanks as \040: keep such paths out rather than misparse them
		 */
		if (strchr(mnt, '\\') || strlen(mnt) >= len)
			continue;
		snprintf(buf, len, "%s", mnt);
		ret = 0;
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

static int parse_id(const char *arg, uint64_t *id)
{
	char *end;

	for (const char *p = arg; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	errno = 0;
	*id = strtoull(arg, &end, 10);
	return errno || *end || end == arg ? -1 : 0;
}

/* The directory of a cgroup path ARG, absolute or relative to MOUNT (NULL: the cgroup2 mount). */
static int cgroup_path(const char *arg, const char *mount, char *path, size_t len, char *why,
                       size_t whylen)
{
	char mbuf[PATH_MAX];

	if (arg[0] == '/') {
		snprintf(path, len, "%s", arg);
	} else {
		if (!mount) {
			if (lfr_cgroup2_mount(NULL, mbuf, sizeof(mbuf))) {
				snprintf(why, whylen,
				         "no cgroup2 file system is mounted (mount -t cgroup2 none "
				         "/sys/fs/cgroup), so '%s' names no cgroup",
				         arg);
				return -ENOENT;
			}
			mount = mbuf;
		}
		if ((size_t)snprintf(path, len, "%s/%s", mount, arg) >= len) {
			snprintf(why, whylen, "cgroup path too long");
			return -ENAMETOOLONG;
		}
	}
	return 0;
}

int lfr_cgroup_resolve(const char *arg, const char *mount, uint64_t *id, char *why, size_t whylen)
{
	char path[PATH_MAX];
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h;
	struct statfs sfs;
	struct stat st;
	int mount_id, ret;

	if (!*arg) {
		snprintf(why, whylen, "empty cgroup: give a path or an id");
		return -EINVAL;
	}
	if (parse_id(arg, id) == 0) {
		if (!*id) {
			snprintf(why, whylen, "cgroup id 0 does not exist");
			return -EINVAL;
		}
		return 0;
	}
	if ((ret = cgroup_path(arg, mount, path, sizeof(path), why, whylen)))
		return ret;
	if (stat(path, &st) < 0) {
		int err = errno;

		snprintf(why, whylen, "no cgroup %s: %s", path, strerror(err));
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s is not a cgroup directory", path);
		return -ENOTDIR;
	}
	if (statfs(path, &sfs) < 0) {
		int err = errno;

		snprintf(why, whylen, "%s: %s", path, strerror(err));
		return -err;
	}
	if ((uint32_t)sfs.f_type == CGROUP1_MAGIC) {
		snprintf(why, whylen,
		         "%s is in a cgroup v1 hierarchy; lfr follows cgroup v2 only (the unified "
		         "hierarchy, usually /sys/fs/cgroup)",
		         path);
		return -EMEDIUMTYPE;
	}
	if ((uint32_t)sfs.f_type != CGROUP2_MAGIC) {
		snprintf(why, whylen, "%s is not inside a cgroup2 file system", path);
		return -EMEDIUMTYPE;
	}
	/* On cgroup2 the file handle is the 64-bit cgroup id; st_ino is the same on 64-bit. */
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(uint64_t))
		memcpy(id, h.fh.f_handle, sizeof(*id));
	else
		*id = (uint64_t)st.st_ino;
	return 0;
}

int lfr_cgroup_procs_open(const char *arg, const char *mount, char *why, size_t whylen)
{
	char path[PATH_MAX];
	struct statfs sfs;
	uint64_t id;
	int fd, err;

	if (!*arg || parse_id(arg, &id) == 0) {
		snprintf(why, whylen,
		         "a cgroup id names no cgroup.procs file: give the cgroup's path");
		return -ENOENT;
	}
	if ((err = cgroup_path(arg, mount, path, sizeof(path), why, whylen)))
		return err;
	if (strlen(path) + sizeof("/cgroup.procs") > sizeof(path)) {
		snprintf(why, whylen, "cgroup path too long");
		return -ENAMETOOLONG;
	}
	strcat(path, "/cgroup.procs");
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		snprintf(why, whylen, "%s: %s", path, strerror(err));
		return -err;
	}
	if (fstatfs(fd, &sfs) < 0 || (uint32_t)sfs.f_type != CGROUP2_MAGIC) {
		close(fd);
		snprintf(why, whylen, "%s is not inside a cgroup2 file system", path);
		return -EMEDIUMTYPE;
	}
	return fd;
}
