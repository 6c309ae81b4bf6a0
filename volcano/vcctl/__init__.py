"""``vcctl``: Volcano's command-line tool, with upstream's commands, flags and output, for any kubeconfig.

* ``client``: the connection (``--kubeconfig``/``-k``, ``--master``/``-s``) over the official
  ``kubernetes`` client, and the ``bus.volcano.sh/v1alpha1`` Commands that suspend, resume, open and
  close;
* ``jobs``: ``vcctl job run|list|view|suspend|resume|delete``;
* ``queues``: ``vcctl queue create|delete|get|list|operate``;
* ``cli``: the argument parser, ``vcctl version``, and ``main`` (the console script).
"""
