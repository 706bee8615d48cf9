"""Korean: what the devices services say: the catalog of device types, its checks, PromQL and Prometheus."""

TEXTS: dict[str, str] = {
    # --- 디바이스가 보고하는 값 ---
    "metric.utilization": "사용률",
    "metric.memory_used": "메모리 사용량",
    "metric.memory_total": "전체 메모리",
    "metric.memory_free": "여유 메모리",
    "metric.temperature": "온도",
    "metric.power": "전력",
    "metric.health": "상태",
    # --- 리소스 키: 마법사의 첫 번째 검사 ---
    "resource_key.invalid": "{key}은(는) 올바른 리소스 키가 아닙니다: {problems:list}.",
    "resource_key.problems": "{problems:list}",
    "resource_key.found": (
        "✓ 클러스터에서 감지된 리소스입니다. {key}: 노드 {count}개에 {capacity}개 (할당 가능 "
        "{allocatable}개)."
    ),
    "resource_key.zero_capacity": (
        "{key}이(가) 노드 {count}개에 있지만 용량이 0입니다. 디바이스 플러그인이 지금 디바이스를 하나도 "
        "보고하지 않습니다. 해당 노드에서 플러그인 파드가 정상적으로 실행 중인지 확인하세요."
    ),
    "resource_key.not_found": (
        "노드 {count}개 중 {key}을(를) 제공하는 노드가 없습니다. 디바이스 플러그인 DaemonSet이 가속기 "
        "노드에서 "
        "실행되고 정확히 이 이름을 등록하는지 확인하세요(kubectl describe node의 Capacity에 나옵니다). "
        "리소스 키는 대소문자를 구분합니다."
    ),
    "resource_key.not_found_similar": (
        "노드 {count}개 중 {key}을(를) 제공하는 노드가 없습니다. 디바이스 플러그인 DaemonSet이 가속기 "
        "노드에서 "
        "실행되고 정확히 이 이름을 등록하는지 확인하세요(kubectl describe node의 Capacity에 나옵니다). "
        "리소스 키는 대소문자를 구분합니다. {similar}을(를) 뜻하셨나요?"
    ),
    "resource_key.not_found_similar_many": (
        "노드 {count}개 중 {key}을(를) 제공하는 노드가 없습니다. 디바이스 플러그인 DaemonSet이 가속기 "
        "노드에서 "
        "실행되고 정확히 이 이름을 등록하는지 확인하세요(kubectl describe node의 Capacity에 나옵니다). "
        "리소스 키는 대소문자를 구분합니다. 다음 중 하나를 뜻하셨나요? {similar:list}"
    ),
    "resource_key.rule.empty": (
        "리소스 키가 비어 있습니다. 디바이스 플러그인이 알리는 이름을 입력하세요(예: hyperaccel.ai/lpu)"
    ),
    "resource_key.rule.reserved_domain": (
        "{key}: kubernetes.io/ 도메인은 Kubernetes 전용입니다. 디바이스 제조사의 도메인을 쓰세요"
        "(예: example.com/npu)"
    ),
    "resource_key.rule.requests_prefix": (
        "{key}은(는) requests.로 시작하면 안 됩니다. Kubernetes가 할당량(ResourceQuota)에 쓰는 "
        "접두어이니 빼세요"
    ),
    "resource_key.rule.missing_prefix": (
        "{key}에는 example.com/ 같은 도메인 접두어가 있어야 합니다. 접두어가 없는 이름은 Kubernetes 자체 "
        "리소스입니다(예: example.com/{key})"
    ),
    "resource_key.rule.extra_slash": (
        "{key}에 /가 {slashes}개 있습니다. 도메인 접두어와 이름 사이에 정확히 하나만 있어야 합니다"
        "(예: example.com/npu)"
    ),
    "resource_key.rule.prefix_empty": (
        "/ 앞의 도메인 접두어가 비어 있습니다. 제조사의 도메인을 쓰세요(예: example.com/npu)"
    ),
    "resource_key.rule.prefix_too_long": (
        "접두어는 {max}자 이하여야 합니다(현재 {length}자). Kubernetes가 할당량에 쓸 때 requests.를 붙이며 "
        "전체 253자까지 허용합니다"
    ),
    "resource_key.rule.prefix_syntax": (
        "접두어 {prefix}은(는) 소문자 DNS 서브도메인이어야 합니다. 영문 소문자, 숫자, -, .만 쓰고 점으로 "
        "나뉜 "
        "각 부분은 영문자나 숫자로 시작하고 끝나야 합니다(예: hyperaccel.ai)"
    ),
    "resource_key.rule.name_empty": (
        "/ 뒤의 이름 부분이 비어 있습니다. 리소스 이름을 쓰세요(예: example.com/npu)"
    ),
    "resource_key.rule.name_too_long": "이름 부분은 {max}자 이하여야 합니다({name}은(는) {length}자)",
    "resource_key.rule.name_syntax": (
        "이름 부분 {name}은(는) 영문자, 숫자, -, _, .로만 이루어지고 영문자나 숫자로 시작하고 끝나야 합니다"
        "(예: lpu, ATOM, mig-1g.5gb)"
    ),
    # --- 지표 식: 마법사의 두 번째 검사 ---
    "metric_check.labels_same": (
        "노드 레이블과 디바이스 레이블이 모두 {name}입니다. 한 노드의 디바이스들을 구별하는 레이블을 "
        "지정하세요(예: device, gpu)"
    ),
    "metric_check.unparsable": "{problem}. PromQL 식을 고치세요.",
    "metric_check.unparsable_quoted": (
        "{expression}은(는) 올바른 PromQL이 아닙니다. 식을 고치세요. 파서의 메시지:"
    ),
    "metric_check.rejected": "Prometheus가 {query}을(를) 거부했습니다({error_type}: {error})",
    "metric_check.untried": "식을 시험하지 못했습니다: {reason}",
    "metric_check.not_vector": (
        "{query}의 결과가 {result_type}이며 디바이스별 시리즈가 아닙니다. 디바이스별 지표를 선택하세요"
    ),
    "metric_check.prometheus_warning": "Prometheus 경고: {warning}",
    "metric_check.no_series": (
        "아직 시리즈 없음: 지금 Prometheus에 {query}의 데이터가 없습니다. 익스포터를 방금 배포했다면 첫 "
        "수집을 기다리세요. 그렇지 않다면 지표 이름과 Prometheus가 익스포터를 수집하는지 확인하세요."
    ),
    "metric_check.label_absent": "시리즈 {total}개 중 {count}개에 {name} 레이블이 없습니다",
    "metric_check.both": "{first}. 또한 {second}",
    "metric_check.no_labels": "없음",
    "metric_check.missing_labels": (
        "{which}. NuFi는 시리즈가 어느 노드의 어느 디바이스인지 알기 위해 모든 시리즈에 두 레이블이 다 "
        "필요합니다. 시리즈에 있는 레이블({present})을 지정하거나, 두 레이블을 유지하며 집계하세요"
        "(예: max by ({node}, {device}) ({query}))."
    ),
    "metric_check.duplicates": (
        "디바이스 {count}개에 시리즈가 둘 이상 있습니다(예: {node_label}={node}, {device_label}={device}). "
        "NuFi는 가장 큰 값을 씁니다. 직접 고르려면 디바이스마다 시리즈 하나로 집계하세요"
        "(예: max by ({node_label}, {device_label}) ({query}))."
    ),
    "metric_check.not_numbers": "값 {total}개 중 {count}개가 숫자가 아닙니다(NaN 또는 무한대)",
    "metric_check.refused_values": (
        "값 {total}개 중 {count}개는 이 디바이스 유형의 fetcher가 측정값으로 보지 않습니다(예: {example:g}, "
        "익스포터가 값을 읽지 못했다는 표시). 보고되지 않은 값으로 표시됩니다"
    ),
    "metric_check.implausible_values": (
        "값 {total}개 중 {count}개가 있을 수 없는 값으로 보입니다 (예: {example:g}). {hint}. 모니터링에서는 "
        "보고되지 않은 값으로 표시됩니다"
    ),
    "metric_check.converted": (
        "시리즈 {total}개 중 {count}개를 {source}에서 {target}(으)로 변환했습니다. 익스포터가 이전 단위로 "
        "보고하며, 값의 범위로 알아냈습니다"
    ),
    "metric_check.converted_other": (
        "시리즈 {total}개 중 {count}개를 변환했습니다({conversion}). 익스포터가 이전 단위로 보고하며, 값의 "
        "범위로 알아냈습니다"
    ),
    "metric_check.hint.utilization": (
        "사용률은 디바이스별 {min:g}~{max:g} 사이의 백분율입니다(코어의 합이 아니라 평균이며, 0~1 비율이면 "
        "100을 곱하세요)"
    ),
    "metric_check.hint.memory": "메모리는 음수일 수 없습니다. 식과 단위를 확인하세요",
    "metric_check.hint.temperature": (
        "온도는 {min:g}~{max:g} °C 사이여야 합니다. 값이 매우 크면 보통 익스포터가 센서를 읽지 못했거나 "
        "m°C로 보고하는 경우입니다"
    ),
    "metric_check.hint.power": "전력은 W 단위이며 음수일 수 없습니다",
    "metric_check.hint.health": (
        "상태 식은 정상인 디바이스에 1, 비정상인 디바이스에 0을 줍니다 (예: 익스포터의 0이 정상을 뜻하면 "
        "'x == bool 0')"
    ),
    # --- 관리자의 식이 Prometheus에 주는 부담 ---
    "query_bounds.range": "{field}: {problem}",
    "query_bounds.count_timed_out": (
        "{field}: {query}의 시리즈 수를 세는 데 {series_check_timeout_seconds:g}초 넘게 걸렸습니다"
        "(NUFI_PROMQL_SERIES_CHECK_TIMEOUT_SECONDS). 스냅숏마다 실행하기에는 부담이 크니 시리즈를 줄이거나 "
        "범위를 짧게 하세요"
    ),
    "query_bounds.too_many_series": (
        "{field}: {query}이(가) 시리즈 {series}개를 선택해 NuFi가 허용하는 {max_series}개를 넘습니다"
        "(NUFI_PROMQL_MAX_SERIES). 선택자를 좁히거나 집계하세요(예: max by (node, device) (...))"
    ),
    # --- 디바이스 유형의 식이 준 측정값 ---
    "readings.not_run": "쿼리를 실행하지 않았습니다",
    "readings.not_vector": (
        "{query}의 결과가 {result_type}이며 디바이스별 시리즈가 아닙니다. 익스포터의 디바이스별 지표를 "
        "선택하세요"
    ),
    "readings.unattributed": (
        "{query}의 시리즈 {count}개에 노드 레이블 {node}이나 디바이스 레이블 {device}이(가) 없어 "
        "제외했습니다. "
        "식에서 두 레이블을 유지하세요(예: max by ({node}, {device}) ({query}))"
    ),
    # --- 있을 수 있는 측정값 ---
    "plausibility.reading": "노드 {node}의 디바이스 {device}: {reason}. 보고되지 않은 값으로 표시합니다",
    "plausibility.not_finite": "{metric} {value}은(는) 유한한 숫자가 아닙니다",
    "plausibility.utilization": "사용률 {value:g}%가 {min:g}~{max:g}% 범위를 벗어납니다",
    "plausibility.temperature": "온도 {value:g} °C가 {min:g}~{max:g} °C 범위를 벗어납니다",
    "plausibility.memory_negative": "{metric} {value:.0f}바이트가 음수입니다",
    "plausibility.power_negative": "전력 {value:g} W가 음수입니다",
    "plausibility.health": "상태 {value:g}은(는) 1(정상)도 0(비정상)도 아닙니다",
    "plausibility.memory_over_total": "메모리 사용량 {used:.0f}바이트가 전체 {total:.0f}바이트보다 큽니다",
    # --- 디바이스 유형 ---
    "device_type.not_found": "디바이스 유형 {device_type!r}이(가) 없습니다.",
    "device_type.no_official": "초기화할 공식 디바이스 유형 {device_type!r}이(가) 없습니다.",
    "device_type.id_reserved": (
        "{id!r}은(는) API 경로에 쓰이는 단어입니다(/api/v1/monitoring/{id}). 다른 ID를 고르세요."
    ),
    "device_type.id_official": "{device_type!r}은(는) 공식 디바이스 유형의 ID입니다. 다른 ID를 고르세요.",
    "device_type.official_undeletable": (
        "{device_type!r}은(는) 공식 디바이스 유형이라 삭제할 수 없습니다. 대신 비활성화하거나"
        '(PUT에 "enabled": false) 프리셋으로 초기화하세요.'
    ),
    "device_type.in_use": (
        "디바이스 유형 {device_type!r}을(를) 워크로드 {count}개가 쓰고 있습니다: {names}. 먼저 워크로드를 "
        "삭제하거나 다른 유형으로 옮기세요."
    ),
    "device_type.official_key": (
        "리소스 키 {resource_key!r}은(는) 공식 디바이스 유형 {device_type!r}의 키입니다. 다시 등록하지 말고 "
        "그 유형을 수정하세요."
    ),
    "device_type.invalid_field": "{field}: {reason}",
    "device_type.official_identity": (
        "공식 디바이스 유형 {device_type!r}의 {field}은(는) 바꿀 수 없습니다. 수정할 수 있는 항목: "
        "{editable}."
    ),
    "device_type.stale": (
        "다른 사람이 디바이스 유형 {device_type!r}을(를) 바꿨습니다(현재 리비전 {current_revision}, 보고 "
        "있던 "
        "리비전 {expected_revision}). 다시 불러온 뒤 변경을 다시 적용하세요."
    ),
    "device_type.unreadable_official": (
        "저장된 디바이스 유형 {device_type!r}이(가) 더 이상 올바르지 않습니다({field}: {reason}). 프리셋으로 "
        "초기화하세요."
    ),
    "device_type.unreadable_custom": (
        "저장된 디바이스 유형 {device_type!r}이(가) 더 이상 올바르지 않습니다({field}: {reason}). 삭제한 뒤 "
        "다시 등록하세요."
    ),
    "device_type.labels_same": (
        "labels.node와 labels.device가 모두 {name}입니다. 시리즈는 어느 노드인지와, 따로, 그 노드의 어느 "
        "디바이스인지를 알려야 합니다"
    ),
    "device_type.memory_total_required": (
        "mode가 {mode}이면 metrics.memory.total이 필요합니다. 전체 메모리 식을 입력하거나 mode를 바꾸세요"
    ),
    "device_type.memory_free_required": (
        "mode가 {mode}이면 metrics.memory.free가 필요합니다. 여유 메모리 식을 입력하거나 mode를 바꾸세요"
    ),
    "device_type.memory_total_unused": (
        "mode가 {mode}이면 metrics.memory.total은 쓰지 않습니다. 지우거나 mode를 used_total로 바꾸세요"
    ),
    "device_type.memory_free_unused": (
        "mode가 {mode}이면 metrics.memory.free는 쓰지 않습니다. 지우거나 mode를 used_free로 바꾸세요"
    ),
    "device_type.promql_unparsable": "{problem}. PromQL 식을 고치세요",
    "device_type.thermal_hysteresis": (
        "thermal.recover_celsius({recover:g})는 thermal.threshold_celsius({threshold:g})보다 낮아야 "
        "합니다(예: 10도 낮게)"
    ),
    "device_type.text_empty": "{name}은(는) 비워 둘 수 없습니다",
    "device_type.text_too_long": "{name}은(는) {max}자 이하여야 합니다(현재 {length}자)",
    "device_type.fetcher_name": (
        "{fetcher}은(는) fetcher 이름이 아닙니다. 영문 소문자, 숫자, -, _, .를 쓰세요(예: {example})"
    ),
    "device_type.id_syntax": (
        "{id}은(는) 올바른 ID가 아닙니다. 영문 소문자, 숫자, -로 1~63자를 쓰고 영문자나 숫자로 시작하고 "
        "끝나야 합니다(예: lpu)"
    ),
    "draft.too_large": "초안이 {limit}자보다 커서 보관하지 않았습니다.",
    "fetcher.unknown": (
        "fetcher {fetcher}을(를) 쓸 수 없습니다. {available} 중에서 고르거나, 이를 제공하는 패키지를 "
        "설치하세요(entry point 그룹 {group})"
    ),
    # --- 디바이스 유형 저장: 마법사의 검사를 다시 ---
    "save.resource_key_absent": ("{check} 먼저 디바이스 플러그인을 설치하거나, ?force=true로 저장하세요."),
    "save.label_lacking": "{label!r} 레이블이 없는 시리즈가 있습니다",
    "save.metric_failed": "metrics.{metric}: {problems:list} (또는 ?force=true로 저장하세요)",
    "save.label_problem": "labels.{label}: {problem}",
    "save.labels_invalid": "{problems:list}",
    "save.metric_warning": "{metric}: {warning}",
    # --- PromQL 식 (nufi.models.promql) ---
    "promql.empty": "식이 비어 있습니다",
    "promql.not_text": "식에 텍스트가 아닌 문자가 들어 있습니다",
    "promql.syntax": "PromQL 식 {expression}을(를) 해석할 수 없습니다(파서 메시지: “{reason}”)",
    "promql.too_long": (
        "식이 {length}자로 한도 {limit}자를 넘습니다. 식을 줄이세요(예: 집계하거나 recording rule 사용)"
    ),
    "promql.too_deep": (
        "식이 약 {depth}단계로 중첩되어(연산자, 괄호, 함수 호출) 한도 {limit}단계를 넘습니다. "
        "식을 단순하게 하세요(예: recording rule 사용)"
    ),
    "promql.constant": (
        "{expression}은(는) 상수이며 디바이스별 시리즈가 아닙니다. 익스포터의 지표를 선택하세요"
        "(예: lpu_utilization_percent)"
    ),
    "promql.range_vector": (
        "{expression}은(는) 범위 벡터입니다. 시리즈마다 값 하나를 주는 함수로 감싸세요"
        "(예: avg_over_time({expression}))"
    ),
    "promql.range_too_wide": (
        "{expression}의 범위 선택자가 {range}로, NuFi가 허용하는 {limit}보다 깁니다"
        "(NUFI_PROMQL_MAX_RANGE_SECONDS). 더 짧은 범위를 쓰세요"
    ),
    "promql.subquery_too_wide": (
        "{expression}의 서브쿼리 범위가 {range}로, NuFi가 허용하는 {limit}보다 깁니다"
        "(NUFI_PROMQL_MAX_RANGE_SECONDS). 더 짧은 범위를 쓰세요"
    ),
    "promql.step_too_fine": (
        "{expression}의 서브쿼리 간격이 {step}로, NuFi가 허용하는 {limit}보다 촘촘합니다"
        "(NUFI_PROMQL_MIN_SUBQUERY_STEP_SECONDS). 간격을 넓히거나, 생략해 평가 주기를 쓰세요"
    ),
    "promql.label.empty": "레이블 이름이 비어 있습니다. 익스포터의 시리즈에 나오는 레이블을 입력하세요",
    "promql.label.syntax": (
        "{name}은(는) Prometheus 레이블 이름이 아닙니다. 영문자, 숫자, _만 쓰고 숫자로 시작하지 마세요"
        "(예: node, exported_pod)"
    ),
    "promql.label.reserved": (
        "{name}은(는) __로 시작합니다. Prometheus가 내부 레이블용으로 예약한 접두어라 저장된 시리즈에는 "
        "나타나지 않습니다. 익스포터의 시리즈에 붙은 레이블을 쓰세요"
    ),
    # --- Prometheus 자체 (nufi.prom) ---
    "prometheus.timed_out": "{url}의 Prometheus가 {seconds:g}초 안에 응답하지 않았습니다",
    "prometheus.connect_failed": "{url}의 Prometheus에 연결할 수 없습니다: {reason}",
    "prometheus.request_failed": "{url}의 Prometheus에 보낸 요청이 실패했습니다: {reason}",
    "prometheus.query_rejected": (
        "Prometheus가 쿼리 {query!r}을(를) 거부했습니다({error_type}: {error}). PromQL 식을 고치세요."
    ),
    "prometheus.query_failed": (
        "{url}의 Prometheus가 쿼리 {query!r}에 답하지 못했습니다({error_type}: {error})"
    ),
    "prometheus.answer_too_large": (
        "{url}의 Prometheus가 쿼리 {query!r}에 NuFi가 읽는 최대 크기인 {limit}보다 큰 응답을 보냈습니다. "
        "식의 범위를 좁히거나(시리즈나 레이블 줄이기) NUFI_PROMETHEUS_MAX_RESPONSE_BYTES를 늘리세요"
    ),
    "prometheus.not_its_api": (
        "{url}이(가) HTTP {status}로 응답했지만 Prometheus API 응답이 아닙니다. NUFI_PROMETHEUS_URL이 "
        "Prometheus 자체를 가리키는지 확인하세요"
    ),
    "prometheus.read_failed": "{url}의 Prometheus가 HTTP {status} 오류로 응답했습니다",
    "prometheus.reload_failed": (
        "{url}의 Prometheus가 규칙을 다시 읽지 않았습니다 (HTTP {status}: {reason}). "
        "--web.enable-lifecycle로 시작하거나, 설정 리로더가 있으면 NUFI_ALERTS_RELOAD=false로 두세요"
    ),
    "prometheus.not_configured": (
        "Prometheus가 설정되지 않았습니다. NUFI_PROMETHEUS_URL에 Prometheus 기본 URL을 설정하세요"
        "(예: http://prometheus:9090)"
    ),
    "prometheus.malformed": "Prometheus가 형식이 잘못된 쿼리 결과를 보냈습니다: {problem}",
    "prometheus.value_not_string": (
        "Prometheus가 문자열이 아닌 샘플 값 {value}을(를) 보냈습니다. 설정한 URL이 정말 Prometheus 서버인지 "
        "확인하세요"
    ),
    "prometheus.value_not_number": (
        "Prometheus가 숫자가 아닌 샘플 값 {value}을(를) 보냈습니다. 설정한 URL이 정말 Prometheus 서버인지 "
        "확인하세요"
    ),
    "prometheus.timestamp_invalid": "Prometheus가 Unix 초가 아닌 샘플 타임스탬프 {value}을(를) 보냈습니다",
}
