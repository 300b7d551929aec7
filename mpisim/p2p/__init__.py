"""Point-to-point communication: requests and statuses, matching, the send protocols over
the network, the completion calls (wait/test families) and the argument checks.

Nothing here knows about buffered mode: a bsend reaches this package as the standard-mode
send the model implementation posts for its entry (3.6.1).
"""
