"""systemd knowledge: unit files, drop-ins, `systemctl show`, process environments (pure)."""
