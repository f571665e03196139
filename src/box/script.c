/* SPDX-License-Identifier: ISC */
/*
 * box init --script: the same work as box init, as an idempotent root
 * shell script to pipe into a container (podman exec -i BOX sh). It holds
 * no password: inside the box, the NOPASSWD drop-in stays exactly while
 * the user has no usable password there (passwd -S), which is the rule
 * box init follows with the stored password on this host.
 *
 * Only checked values reach the script (a sanitized name, numbers, and
 * printable paths without ':'), and each is single-quoted anyway.
 */
#include <string.h>

#include "warrant.h"
#include "box/box.h"

static const char body[] =
"step=check\n"
"trap 'rc=$?; [ \"$rc\" -eq 0 ] || echo \"warrant box: step $step failed (exit $rc)\" >&2' EXIT\n"
"refuse() { trap - EXIT; echo \"warrant box: refused ($1): $2\" >&2; exit 2; }\n"
"field() { printf '%s\\n' \"$1\" | cut -d: -f\"$2\"; }\n"
"[ \"$(id -u)\" -eq 0 ] || refuse not_root 'the script must run as root'\n"
"for t in useradd usermod groupadd passwd visudo chown getent; do\n"
"\tcommand -v \"$t\" >/dev/null 2>&1 || refuse missing_tool \"$t is not installed\"\n"
"done\n"
"[ -d /etc/sudoers.d ] || refuse no_sudo '/etc/sudoers.d is missing (is sudo installed?)'\n"
"if getent group wheel >/dev/null; then admin=wheel\n"
"elif getent group sudo >/dev/null; then admin=sudo\n"
"else refuse no_admin_group 'neither group wheel nor group sudo exists'; fi\n"
"rec=$boxdir/$u.user\n"
"# box init's record that it created (or adopted) $u, with this uid.\n"
"recorded() { [ ! -L \"$rec\" ] && [ -f \"$rec\" ] && [ \"$(stat -c %u \"$rec\")\" = 0 ] && [ \"$(cat \"$rec\")\" = \"$1\" ]; }\n"
"exists=0 cur_uid='' adopting=0\n"
"if ent=$(getent passwd \"$u\"); then\n"
"\texists=1 cur_uid=$(field \"$ent\" 3)\n"
"\tcase $cur_uid in\n"
"\t[0-9]|[0-9][0-9]|[0-9][0-9][0-9]|65534|65535)\n"
"\t\trefuse system_account \"'$u' is a system account (uid $cur_uid)\" ;;\n"
"\tesac\n"
"\tif ! recorded \"$cur_uid\"; then\n"
"\t\t[ \"$adopt\" = 1 ] || refuse not_box_user \"'$u' (uid $cur_uid) exists and was not created by warrant box; give --adopt to make it a box user anyway\"\n"
"\t\tadopting=1\n"
"\tfi\n"
"\t[ -n \"$home\" ] || home=$(field \"$ent\" 6)\n"
"fi\n"
"[ -n \"$home\" ] || home=/home/$u\n"
"if [ -n \"$uid\" ] && ent=$(getent passwd \"$uid\") && [ \"$(field \"$ent\" 1)\" != \"$u\" ]; then\n"
"\trefuse uid_in_use \"uid $uid belongs to '$(field \"$ent\" 1)'\"\n"
"fi\n"
"if [ -z \"$gid\" ] && [ \"$exists\" -eq 0 ] && ent=$(getent group \"$u\") && [ \"$(field \"$ent\" 3)\" -lt 1000 ]; then\n"
"\trefuse system_group \"'$u' is a system group\"\n"
"fi\n"
"if [ -n \"$gid\" ] && ! getent group \"$gid\" >/dev/null && getent group \"$u\" >/dev/null; then\n"
"\trefuse group_conflict \"group '$u' exists with another gid than $gid\"\n"
"fi\n"
"[ -n \"$shell\" ] || [ \"$exists\" -eq 1 ] || shell=" BOX_SHELL "\n"
"[ -z \"$shell\" ] || [ -x \"$shell\" ] || refuse bad_shell \"shell $shell is not executable\"\n"
"# The home, the account's own too, before anything changes (box_home_check\n"
"# and check_home in warrant): under " BOX_HOMES "/, no hidden or lost+found\n"
"# component, every directory above it real and root's alone; an existing\n"
"# home is the user's, or root's and empty.\n"
"case $home in\n"
"*[!\\ -~]*) refuse bad_home 'the home holds a control or non-ASCII character' ;;\n"
"esac\n"
"case $home in\n"
"" BOX_HOMES "/?*) ;;\n"
"*) refuse bad_home \"home '$home' refused: a box home lies under " BOX_HOMES "/ (/, " BOX_HOMES " itself and the system's trees such as /etc, /usr, /var, /opt, /srv or /tmp never hold one)\" ;;\n"
"esac\n"
"case $home in\n"
"*:*|*//*|*/|*/.*|*/lost+found|*/lost+found/*)\n"
"\trefuse bad_home \"home '$home' refused: it holds ':', an empty, hidden or lost+found component, or ends with '/'\" ;;\n"
"esac\n"
"[ ${#home} -lt 256 ] || refuse bad_home \"home '$home' is longer than 255 bytes\"\n"
"other=$(getent passwd | while IFS=: read -r n _ _ _ _ h _; do\n"
"\t[ \"$n\" != \"$u\" ] || continue\n"
"\tcase $h in \"$home\"|\"$home\"/*) printf '%s' \"$n\"; break ;; esac\n"
"done)\n"
"[ -z \"$other\" ] || refuse home_in_use \"home $home refused: it is, or holds, the home of '$other'\"\n"
"p='' rest=${home#/}\n"
"while [ -n \"$rest\" ]; do\n"
"\td=${p:-/}\n"
"\t[ ! -L \"$d\" ] || refuse bad_home \"home $home refused: $d is a symbolic link\"\n"
"\t[ -d \"$d\" ] || refuse bad_home \"home $home refused: $d is missing or not a directory\"\n"
"\tm=$(stat -c '%u %a' \"$d\")\n"
"\tif [ \"${m%% *}\" != 0 ] || [ $((0${m#* } & 022)) -ne 0 ]; then\n"
"\t\trefuse home_parent_unsafe \"home $home refused: $d (uid and mode $m) must be root's and writable by no one else\"\n"
"\tfi\n"
"\tp=$p/${rest%%/*}\n"
"\tcase $rest in */*) rest=${rest#*/} ;; *) rest='' ;; esac\n"
"done\n"
"[ ! -L \"$home\" ] || refuse bad_home \"home $home is a symbolic link\"\n"
"if [ -e \"$home\" ]; then\n"
"\t[ -d \"$home\" ] || refuse bad_home \"home $home is not a directory\"\n"
"\towner=$(stat -c %u \"$home\")\n"
"\tif [ \"$owner\" = \"$cur_uid\" ] || [ \"$owner\" = \"$uid\" ]; then :\n"
"\telif [ \"$owner\" != 0 ]; then refuse home_owned_by_other \"home $home belongs to uid $owner\"\n"
"\telif [ -n \"$(ls -A -- \"$home\")\" ]; then refuse home_not_empty \"home $home is root's and holds files\"\n"
"\tfi\n"
"fi\n"
"if [ \"$adopting\" -eq 1 ]; then\n"
"\t{\n"
"\techo \"warrant box: warning: adopting '$u' (uid $cur_uid), an account warrant box did not create; this changes:\"\n"
"\tent=$(getent passwd \"$u\")\n"
"\t[ -z \"$uid\" ] || [ \"$uid\" = \"$cur_uid\" ] || echo \"  - its uid: $cur_uid -> $uid (usermod -u)\"\n"
"\t[ -z \"$gid\" ] || [ \"$gid\" = \"$(field \"$ent\" 4)\" ] || echo \"  - its group: gid $(field \"$ent\" 4) -> $gid (usermod -g)\"\n"
"\t[ \"$home\" = \"$(field \"$ent\" 6)\" ] || echo \"  - its home: $(field \"$ent\" 6) -> $home (usermod -d; nothing is moved)\"\n"
"\t[ -z \"$shell\" ] || [ \"$shell\" = \"$(field \"$ent\" 7)\" ] || echo \"  - its shell: $(field \"$ent\" 7) -> $shell\"\n"
"\tcase \" $(id -nG \"$u\") \" in *\" $admin \"*) ;; *) echo \"  - it joins the admin group $admin\" ;; esac\n"
"\tif [ ! -e \"$home\" ]; then echo \"  - its home $home is created, mode 0700\"\n"
"\telif [ ! -e \"$home/" BOX_MARKER "\" ]; then echo \"  - every file in $home becomes its own, once: chown -R -P -h ${uid:-$cur_uid}:${gid:-$(field \"$ent\" 4)}\"; fi\n"
"\tcase $(passwd -S \"$u\" | cut -d' ' -f2) in\n"
"\tP|PS) echo \"  - sudo asks for its own password (any NOPASSWD drop-in is removed)\" ;;\n"
"\tNP) echo \"  - it gets sudo without any password: /etc/sudoers.d/" BOX_DROPIN "$u grants '$u ALL=(ALL:ALL) NOPASSWD: ALL'\"\n"
"\t\techo \"  - its empty password is locked ('!')\" ;;\n"
"\t*) echo \"  - it gets sudo without any password: /etc/sudoers.d/" BOX_DROPIN "$u grants '$u ALL=(ALL:ALL) NOPASSWD: ALL'\" ;;\n"
"\tesac\n"
"\techo \"  - it is recorded as a box user in $rec\"\n"
"\t} >&2\n"
"fi\n"
"\n"
"step=groupadd\n"
"if [ -n \"$gid\" ] && ! getent group \"$gid\" >/dev/null; then groupadd -g \"$gid\" -- \"$u\"; fi\n"
"if [ \"$exists\" -eq 0 ]; then\n"
"\tstep=useradd\n"
"\tset -- -c '" BOX_COMMENT "' -d \"$home\" -s \"$shell\"\n"
"\t[ -z \"$uid\" ] || set -- \"$@\" -u \"$uid\"\n"
"\tif [ -n \"$gid\" ]; then set -- \"$@\" -g \"$gid\"\n"
"\telif getent group \"$u\" >/dev/null; then set -- \"$@\" -g \"$u\"\n"
"\telse set -- \"$@\" -U; fi\n"
"\t# An existing home is kept as it is: no skeleton copied into it.\n"
"\tif [ -e \"$home\" ]; then set -- \"$@\" -M; else set -- \"$@\" -m; fi\n"
"\tuseradd \"$@\" -- \"$u\"\n"
"else\n"
"\tstep=usermod\n"
"\tent=$(getent passwd \"$u\")\n"
"\tset --\n"
"\t[ -z \"$uid\" ] || [ \"$(field \"$ent\" 3)\" = \"$uid\" ] || set -- \"$@\" -u \"$uid\"\n"
"\t[ -z \"$gid\" ] || [ \"$(field \"$ent\" 4)\" = \"$gid\" ] || set -- \"$@\" -g \"$gid\"\n"
"\t[ \"$(field \"$ent\" 6)\" = \"$home\" ] || set -- \"$@\" -d \"$home\"\n"
"\t[ -z \"$shell\" ] || [ \"$(field \"$ent\" 7)\" = \"$shell\" ] || set -- \"$@\" -s \"$shell\"\n"
"\t[ $# -eq 0 ] || usermod \"$@\" -- \"$u\"\n"
"fi\n"
"ent=$(getent passwd \"$u\")\n"
"ruid=$(field \"$ent\" 3) rgid=$(field \"$ent\" 4)\n"
"\n"
"step=record-user\n"
"if ! recorded \"$ruid\"; then\n"
"\t[ -d \"$boxdir\" ] || { mkdir -p \"${boxdir%/*}\"; mkdir -m 0700 \"$boxdir\"; }\n"
"\t[ ! -L \"$boxdir\" ] && [ \"$(stat -c %u:%a \"$boxdir\")\" = 0:700 ] || { echo \"warrant box: $boxdir must be root's with mode 0700\" >&2; exit 1; }\n"
"\t(umask 077 && printf '%s\\n' \"$ruid\" >\"$rec.tmp\")\n"
"\tmv -f \"$rec.tmp\" \"$rec\"\n"
"fi\n"
"\n"
"step=admin-group\n"
"case \" $(id -nG \"$u\") \" in\n"
"*\" $admin \"*) ;;\n"
"*) usermod -a -G \"$admin\" -- \"$u\" ;;\n"
"esac\n"
"\n"
"step=home\n"
"if [ ! -e \"$home\" ]; then mkdir -m 0700 \"$home\"; chown -h \"$ruid:$rgid\" \"$home\"; fi\n"
"step=home-migration\n"
"if [ ! -e \"$home/" BOX_MARKER "\" ] && [ ! -L \"$home/" BOX_MARKER "\" ]; then\n"
"\t[ ! -L \"$home\" ] && owner=$(stat -c %u \"$home\") && { [ \"$owner\" = \"$ruid\" ] || { [ \"$owner\" = 0 ] && [ -z \"$(ls -A -- \"$home\")\" ]; }; } ||\n"
"\t\t{ echo \"warrant box: $home is neither $u's nor root's and empty\" >&2; exit 1; }\n"
"\tchown -R -P -h \"$ruid:$rgid\" -- \"$home\"\n"
"\t# A directory: mkdir never follows a symlink and fails if anything is there.\n"
"\tmkdir -m 0700 \"$home/" BOX_MARKER "\"\n"
"\tchown -h \"$ruid:$rgid\" \"$home/" BOX_MARKER "\"\n"
"fi\n"
"\n"
"step=sudoers\n"
"f=/etc/sudoers.d/" BOX_DROPIN "$u\n"
"state=$(passwd -S \"$u\" | cut -d' ' -f2)\n"
"case $state in\n"
"P|PS)\n"
"\trm -f \"$f\"\n"
"\techo \"box user $u: uid $ruid, gid $rgid, home $home; sudo asks for the password\" ;;\n"
"*)\n"
"\tif [ \"$state\" = NP ]; then\n"
"\t\t# An empty password would let anyone su in (pam_unix nullok).\n"
"\t\tstep=lock-empty-password\n"
"\t\tusermod -p '!' -- \"$u\"\n"
"\t\tstep=sudoers\n"
"\tfi\n"
"\ttmp=/etc/sudoers.d/." BOX_DROPIN "$u.tmp\n"
"\trm -f \"$tmp\"\n"
"\t(umask 0337 && printf '%s\\n' \\\n"
"\t    \"# warrant box: $u may use sudo without a password while no box\" \\\n"
"\t    '# password is stored. Managed by `warrant box`; removed when one is.' \\\n"
"\t    \"$u ALL=(ALL:ALL) NOPASSWD: ALL\" >\"$tmp\")\n"
"\tchown 0:0 \"$tmp\"\n"
"\tchmod 0440 \"$tmp\"\n"
"\tvisudo -c -f \"$tmp\" >/dev/null || { rm -f \"$tmp\"; exit 1; }\n"
"\tmv -f \"$tmp\" \"$f\"\n"
"\techo \"box user $u: uid $ruid, gid $rgid, home $home; sudo without a password\" ;;\n"
"esac\n";

static void
assign(FILE *fp, const char *var, const char *value)
{
	fprintf(fp, "%s=", var);
	box_shell_quote(fp, value != NULL ? value : "");
	fputc('\n', fp);
}

int
box_script(FILE *fp, const struct box_spec *s)
{
	char uid[32] = "", gid[32] = "", boxdir[PATH_MAX];

	if (box_dir_path(boxdir, sizeof boxdir) != 0)
		return -1;
	if (s->uid >= 0)
		snprintf(uid, sizeof uid, "%ld", s->uid);
	if (s->gid >= 0)
		snprintf(gid, sizeof gid, "%ld", s->gid);
	fputs("#!/bin/sh\n"
	    "# warrant box init --script: provision a box user. Idempotent; run as\n"
	    "# root inside the box, e.g. piped into `podman exec -i BOX sh`.\n"
	    "# It carries no password: sudo stays passwordless until the user has\n"
	    "# one in the box (then re-run it to drop the NOPASSWD rule).\n"
	    "set -eu\n"
	    "umask 022\n"
	    "PATH=" TRUSTED_PATH "\n"
	    "LC_ALL=C\n"
	    "export PATH LC_ALL\n", fp);
	assign(fp, "u", s->name);
	assign(fp, "uid", uid);
	assign(fp, "gid", gid);
	assign(fp, "home", s->home);
	assign(fp, "shell", s->shell);
	assign(fp, "adopt", s->adopt ? "1" : "0");
	assign(fp, "boxdir", boxdir);
	fputs(body, fp);
	return fflush(fp) == 0 && !ferror(fp) ? 0 : -1;
}
