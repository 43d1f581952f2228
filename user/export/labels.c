// SPDX-License-Identifier: GPL-2.0
/* Label sets: validation, --label's syntax, a recording's and a process's; see labels.h. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "export/cgroup_ident.h"
#include "export/labels.h"

bool lfr_label_key_valid(const char *key)
{
	size_t n = strlen(key);

	if (!n || n >= LFR_LABEL_KEY_MAX || (key[0] >= '0' && key[0] <= '9') || key[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.'))
			return false;
	}
	return true;
}

bool lfr_label_value_valid(const char *value)
{
	size_t n = strlen(value);

	if (!n || n >= LFR_LABEL_VALUE_MAX)
		return false;
	for (const unsigned char *p = (const unsigned char *)value; *p; p++)
		if (*p <= ' ' || *p == 0x7f || strchr(",={}\"\\", *p))
			return false;
	return true;
}

int lfr_labels_set(struct lfr_labels *l, const char *key, const char *value)
{
	struct lfr_label *d = NULL;

	if (!lfr_label_key_valid(key) || !lfr_label_value_valid(value))
		return -1;
	for (unsigned i = 0; i < l->n && !d; i++)
		if (!strcmp(l->v[i].key, key))
			d = &l->v[i];
	if (!d) {
		if (l->n == LFR_LABELS_MAX)
			return -1;
		d = &l->v[l->n++];
		snprintf(d->key, sizeof(d->key), "%s", key);
	}
	snprintf(d->value, sizeof(d->value), "%s", value);
	return 0;
}

size_t lfr_labels_kv(const struct lfr_labels *l, const char **kv)
{
	for (unsigned i = 0; i < l->n; i++) {
		kv[2 * i] = l->v[i].key;
		kv[2 * i + 1] = l->v[i].value;
	}
	return l->n;
}

const char *lfr_labels_get(const struct lfr_labels *l, const char *key)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].value;
	return NULL;
}

/* One KEY=VALUE word of [s, s + n). */
static int parse_word(struct lfr_labels *l, const char *s, size_t n, char *why, size_t whylen)
{
	char word[LFR_LABEL_KEY_MAX + LFR_LABEL_VALUE_MAX + 1];
	char *eq;

	if (n >= sizeof(word)) {
		snprintf(why, whylen,
		         "'%.40s...' is too long (a key of up to %d bytes, a value of up to %d)", s,
		         LFR_LABEL_KEY_MAX - 1, LFR_LABEL_VALUE_MAX - 1);
		return -1;
	}
	memcpy(word, s, n);
	word[n] = 0;
	eq = strchr(word, '=');
	if (!eq) {
		snprintf(why, whylen, "'%s' is not KEY=VALUE", word);
		return -1;
	}
	*eq = 0;
	if (!lfr_label_key_valid(word)) {
		snprintf(why, whylen,
		         "'%s' is not a label key: letters, digits, '_' and '.', starting with a "
		         "letter or '_', up to %d bytes",
		         word, LFR_LABEL_KEY_MAX - 1);
		return -1;
	}
	if (!lfr_label_value_valid(eq + 1)) {
		snprintf(why, whylen,
		         "'%s' is not a label value for %s: 1 to %d printable bytes, no blank and "
		         "none of , = { } \" \\",
		         eq + 1, word, LFR_LABEL_VALUE_MAX - 1);
		return -1;
	}
	if (lfr_labels_set(l, word, eq + 1)) {
		snprintf(why, whylen, "more than %d labels", LFR_LABELS_MAX);
		return -1;
	}
	return 0;
}

int lfr_labels_parse(struct lfr_labels *l, const char *arg, char *why, size_t whylen)
{
	const char *sep = " \t\n,";

	for (const char *p = arg; *p;) {
		size_t n;

		p += strspn(p, sep);
		n = strcspn(p, sep);
		if (n && parse_word(l, p, n, why, whylen))
			return -1;
		p += n;
	}
	return 0;
}

int lfr_labels_recording(const struct lfr_labels *user, struct lfr_labels *out)
{
	struct utsname u;

	memset(out, 0, sizeof(*out));
	/* a node name a label cannot carry is left out rather than changed */
	if (!uname(&u) && lfr_label_value_valid(u.nodename))
		lfr_labels_set(out, LFR_LABEL_HOST, u.nodename);
	for (unsigned i = 0; i < user->n; i++)
		if (lfr_labels_set(out, user->v[i].key, user->v[i].value))
			return -1;
	return 0;
}

static void from_ident(const struct lfr_cgroup_ident *id, const struct lfr_labels *user,
                       struct lfr_labels *out)
{
	memset(out, 0, sizeof(*out));
	if (id->container_id[0])
		lfr_labels_set(out, LFR_LABEL_CONTAINER, id->container_id);
	if (id->pod_uid[0])
		lfr_labels_set(out, LFR_LABEL_POD, id->pod_uid);
	/* a unit name a label cannot carry (escaped blanks, say) names no service */
	if (id->unit[0] && !(user && lfr_labels_get(user, LFR_LABEL_SERVICE)))
		lfr_labels_set(out, LFR_LABEL_SERVICE, id->unit);
}

void lfr_labels_from_cgroup(const char *text, size_t len, const struct lfr_labels *user,
                            struct lfr_labels *out)
{
	struct lfr_cgroup_ident id;

	lfr_cgroup_ident_file(text, len, &id);
	from_ident(&id, user, out);
}

void lfr_labels_process(uint32_t pid, const struct lfr_labels *user, struct lfr_labels *out)
{
	struct lfr_cgroup_ident id;

	lfr_cgroup_ident_read(pid, &id); /* empty when unreadable */
	from_ident(&id, user, out);
}
