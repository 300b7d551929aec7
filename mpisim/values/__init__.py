"""Reading and printing values: units ("64 KiB", "5us", "10 GB/s") and the readers every
setting declares (one-line errors naming the key)."""
