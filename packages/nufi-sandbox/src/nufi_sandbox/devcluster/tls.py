"""The serving certificate of the dev cluster's https port: self-signed for 127.0.0.1, made at start.

kubectl (client-go) sends a bearer token only over TLS, so the port the kubeconfig names is https; the
certificate is its own authority (the kubeconfig carries it as `certificate-authority-data`).
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

KEY_FILE, CERT_FILE = "apiserver.key", "apiserver.crt"
_VALID_FOR = datetime.timedelta(days=365)
_RENEW_BEFORE = datetime.timedelta(days=1)
_CLOCK_SKEW = datetime.timedelta(minutes=5)


@dataclass(frozen=True)
class ServingCertificate:
    cert_file: Path
    key_file: Path

    def pem(self) -> bytes:
        return self.cert_file.read_bytes()


def serving_certificate(directory: Path) -> ServingCertificate:
    """The certificate and key in `directory`, made there unless a valid pair is there already: a dev
    cluster restarted on the same state directory keeps its certificate, so clients that trusted it
    (NuFi, reading the kubeconfig once) reconnect."""
    key_file, cert_file = directory / KEY_FILE, directory / CERT_FILE
    if key_file.is_file() and cert_file.is_file():
        with contextlib.suppress(ValueError):
            certificate = x509.load_pem_x509_certificate(cert_file.read_bytes())
            if certificate.not_valid_after_utc - datetime.datetime.now(datetime.UTC) > _RENEW_BEFORE:
                return ServingCertificate(cert_file, key_file)
    return make_serving_certificate(directory)


def make_serving_certificate(directory: Path) -> ServingCertificate:
    """A fresh key (readable by its owner alone) and a self-signed certificate for 127.0.0.1 and
    localhost, written into `directory`."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nufi-devcluster")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _CLOCK_SKEW)
        .not_valid_after(now + _VALID_FOR)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        # Its own authority: clients trust exactly this certificate.
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    key_file, cert_file = directory / KEY_FILE, directory / CERT_FILE
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write(key_file, key_pem, 0o600)
    _write(cert_file, certificate.public_bytes(serialization.Encoding.PEM), 0o644)
    return ServingCertificate(cert_file, key_file)


def _write(path: Path, data: bytes, mode: int) -> None:
    partial = path.with_name(path.name + ".tmp")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    partial.replace(path)
