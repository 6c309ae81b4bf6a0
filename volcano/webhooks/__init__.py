"""``volcano webhooks``: Volcano's admission served as HTTPS AdmissionReview v1 webhooks.

The rules are ``volcano.admission``'s (the same functions the in-process admission chain runs); this
package puts them behind the wire as upstream's webhook manager does:

* ``services``: the paths (``/jobs/mutate``, ``/jobs/validate``, ...), their webhook names and rules,
  and the ``Mutating/ValidatingWebhookConfiguration`` objects registering them;
* ``review``: AdmissionReview in, AdmissionReview out (JSON Patch for mutation, ``allowed: false``
  with the in-process message for denial);
* ``certs``: the self-signed CA and serving certificate made at start;
* ``server``: the HTTPS server (uvicorn, TLS);
* ``kube``: the cluster view and registration over the official ``kubernetes`` client.

Import the modules themselves: this package imports none of them, so ``volcano --help`` stays light.
"""
