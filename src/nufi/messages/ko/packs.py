"""한국어: 디바이스 팩(YAML로 내보내고 적용하는 디바이스 유형)의 메시지."""

TEXTS: dict[str, str] = {
    "pack.invalid_field": "{path}: {reason}. 값을 고친 뒤 다시 적용하세요.",
    "pack.unknown_field": (
        "{path}: 알 수 없는 필드입니다. 이 위치에 쓸 수 있는 필드: {allowed}. "
        "철자를 고치거나 필드를 지우세요."
    ),
    "pack.unknown_field_suggest": (
        "{path}: 알 수 없는 필드입니다. {suggestion}을(를) 뜻했나요? 철자를 고치거나 필드를 지우세요."
    ),
    "pack.duplicate_name": (
        "{field}: 디바이스 유형 {name!r}이(가) {first}에도 있습니다. 팩에는 유형마다 문서를 하나만 두세요."
    ),
    "pack.revision_of_absent": (
        "{field}: 리비전 {expected_revision}을(를) 주었지만 디바이스 유형 {device_type!r}이(가) 아직 "
        "없습니다. 새로 만들려면 metadata.revision을 지우세요."
    ),
    "pack.prune_without_documents": (
        "문서 없이 prune하면 모든 사용자 정의 디바이스 유형이 지워지므로 거절합니다. "
        "남길 유형의 문서를 주세요."
    ),
    "pack.yaml_invalid": "팩이 YAML이 아닙니다({line}행 {column}열): {problem}",
    "pack.yaml_invalid_nowhere": "팩이 YAML이 아닙니다: {problem}",
    "pack.yaml_alias": (
        "팩에 YAML 앵커나 별칭이 있습니다({line}행 {column}열). 팩에서는 쓸 수 없습니다. "
        "값을 쓰는 곳마다 그대로 적어 주세요."
    ),
    "pack.too_large": (
        "팩이 {size}바이트로, NuFi가 받는 최대 크기 {limit}바이트보다 큽니다. 여러 파일로 나눠 주세요."
    ),
    "pack.document_not_mapping": (
        "{path}: 문서는 apiVersion, kind, metadata, spec을 가진 매핑이어야 하는데 {found}입니다."
    ),
}
