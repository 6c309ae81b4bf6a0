"""A self-signed serving certificate, made at start (the ``cryptography`` package).

``make_certificates(hosts, now=...)`` returns a fresh CA (a self-signed certificate that may sign) and
a serving certificate signed by it for ``hosts`` (DNS names and IP addresses, each as a subject
alternative name), both with new ECDSA P-256 keys. The CA's PEM is the webhook configurations'
``caBundle``; the serving certificate and key are what the HTTPS server presents. Validity starts an
hour before ``now`` (tolerating clock skew) and lasts ``days``.

Time enters only through ``now``: TLS checks validity against the wall clock, so the caller passes
the wall time.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Certificates", "make_certificates"]


@dataclass(frozen=True)
class Certificates:
    """PEM bytes: the CA certificate, the serving certificate and its private key."""

    ca: bytes
    cert: bytes
    key: bytes

    def write(self, directory: Path) -> tuple[Path, Path]:
        """Write ``tls.crt`` and ``tls.key`` (mode 0600) into ``directory``; return their paths."""
        cert, key = directory / "tls.crt", directory / "tls.key"
        cert.write_bytes(self.cert)
        key.touch(mode=0o600)
        key.write_bytes(self.key)
        return cert, key


def _san(hosts: Iterable[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(h for h in hosts if h):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def make_certificates(hosts: Iterable[str], *, now: dt.datetime, days: int = 3650,
                      common_name: str = "volcano-admission") -> Certificates:
    """A new CA and a serving certificate for ``hosts`` (see the module docstring)."""
    san = _san(hosts)
    if not san:
        raise ValueError("hosts: at least one DNS name or IP address is required for the certificate")
    start, end = now - dt.timedelta(hours=1), now + dt.timedelta(days=days)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{common_name}-ca")])
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(ca_ski, critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False, key_cert_sign=False,
                                         crl_sign=False, content_commitment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False),
                           critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(san), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return Certificates(
        ca=ca.public_bytes(pem), cert=cert.public_bytes(pem),
        key=key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
