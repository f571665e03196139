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
"exists=0 cur_uid=''\n"
"if ent=$(getent passwd \"$u\"); then\n"
"\texists=1 cur_uid=$(field \"$ent\" 3)\n"
"\tcase $cur_uid in\n"
"\t[0-9]|[0-9][0-9]|[0-9][0-9][0-9]|65534|65535)\n"
"\t\trefuse system_account \"'$u' is a system account (uid $cur_uid)\" ;;\n"
"\tesac\n"
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
"[ -n \"$shell\" ] || [ \"$exists\" -eq 1 ] || shell=/bin/bash\n"
"[ -z \"$shell\" ] || [ -x \"$shell\" ] || refuse bad_shell \"shell $shell is not executable\"\n"
"[ ! -L \"$home\" ] || refuse bad_home \"home $home is a symbolic link\"\n"
"if [ -e \"$home\" ]; then\n"
"\t[ -d \"$home\" ] || refuse bad_home \"home $home is not a directory\"\n"
"\towner=$(stat -c %u \"$home\")\n"
"\tif [ ! -e \"$home/" BOX_MARKER "\" ] && [ \"$owner\" != 0 ] && [ \"$owner\" != \"${uid:-$cur_uid}\" ] && [ \"$owner\" != \"$cur_uid\" ]; then\n"
"\t\trefuse home_owned_by_other \"home $home belongs to uid $owner\"\n"
"\tfi\n"
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
"\towner=$(stat -c %u \"$home\")\n"
"\t[ \"$owner\" = 0 ] || [ \"$owner\" = \"$ruid\" ] || { echo \"warrant box: $home belongs to uid $owner\" >&2; exit 1; }\n"
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
	char uid[32] = "", gid[32] = "";

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
	    "export PATH\n", fp);
	assign(fp, "u", s->name);
	assign(fp, "uid", uid);
	assign(fp, "gid", gid);
	assign(fp, "home", s->home);
	assign(fp, "shell", s->shell);
	fputs(body, fp);
	return fflush(fp) == 0 && !ferror(fp) ? 0 : -1;
}
