"""Store backends chosen by name or URL scheme."""
