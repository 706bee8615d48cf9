"""Korean: what the monitoring services say."""

TEXTS: dict[str, str] = {
    "monitoring.not_evaluated_yet": "모니터링이 아직 이 장치 유형을 평가하지 않았습니다",
    "monitoring.series_unplaced": "시계열 {count}개에 {node_label} 레이블이 없어 제외했습니다",
    "monitoring.series_unplaced_device": (
        "시계열 {count}개에 {node_label} 또는 {device_label} 레이블이 없어 제외했습니다"
    ),
    "monitoring.last_good": "{failure}. {at}에 평가한 마지막 정상 스냅숏을 보여 줍니다",
    # Paging a type's nodes.
    "monitoring.sort_unknown": "sort '{value}'은(는) {allowed} 중 하나여야 합니다",
    "monitoring.order_unknown": "order '{value}'은(는) {allowed} 중 하나여야 합니다",
    "monitoring.limit_not_number": (
        "limit '{value}'은(는) 정수가 아닙니다. 페이지당 노드 수를 1부터 {max} 사이의 정수로 주거나 "
        "limit을 빼세요"
    ),
    "monitoring.limit_out_of_range": (
        "limit '{value}'이(가) 범위를 벗어났습니다. 페이지당 노드 수를 1부터 {max} 사이의 정수로 주거나 "
        "limit을 빼세요"
    ),
    "monitoring.node_filter_too_long": (
        "노드 필터가 {length}자입니다. 최대 {max}자까지 쓸 수 있습니다(이보다 긴 노드 이름은 없습니다)"
    ),
    "monitoring.continue_malformed": (
        "continue 토큰의 형식이 잘못되었습니다. NuFi가 발급한 토큰이 아닙니다(토큰은 그대로 돌려주어야 "
        "합니다). continue 없이 처음부터 다시 요청하세요"
    ),
    "monitoring.continue_mismatch": (
        "continue 토큰은 다른 node, sort, order, limit 값으로 발급되었습니다. 첫 페이지와 같은 값을 "
        "주거나 continue 없이 처음부터 다시 요청하세요"
    ),
    "monitoring.continue_expired": (
        "이 continue 토큰이 가리키는 스냅숏은 더 이상 보관하지 않습니다(새로 고침 몇 번 동안만 보관합니다). "
        "continue 없이 처음부터 다시 요청하세요."
    ),
    # A range of history.
    "monitoring.metric_unknown": "metric '{value}'은(는) {allowed} 중 하나여야 합니다",
    "monitoring.grouping_unknown": "by '{value}'은(는) {allowed} 중 하나여야 합니다",
    "monitoring.top_unknown": "top '{value}'은(는) {allowed} 중 하나여야 합니다",
    "monitoring.count_out_of_range": (
        "{field} {value}은(는) {min}에서 {max} 사이여야 합니다. 기본값을 쓰려면 빼세요"
    ),
    "monitoring.range_reversed": (
        "start({start})는 end({end})보다 앞서야 합니다. 두 값을 바꾸거나 범위를 넓히세요"
    ),
    "monitoring.range_too_long": (
        "start부터 end까지 {span}로, 허용된 {max_span}(NUFI_MONITORING_MAX_RANGE_SECONDS)보다 깁니다. "
        "start를 {earliest}({earliest_seconds}) 이후로 하거나 end를 옮기세요"
    ),
    "monitoring.step_too_long": (
        "step {step}이(가) 허용된 {max_days}일보다 깁니다. {max_seconds}초 이하의 step을 쓰거나, step을 "
        "빼면 최대 {max_points}개 점을 받습니다"
    ),
    "monitoring.step_too_fine": (
        "step {step}이(가) Prometheus의 평가 단위인 {min_ms}밀리초보다 짧습니다. {finest}초 이상의 step을 "
        "쓰거나, step을 빼면 최대 {max_points}개 점을 받습니다"
    ),
    "monitoring.step_too_many_points": (
        "step {step}이면 이 범위({span})에서 시계열마다 점이 {prometheus_max}개를 넘습니다(Prometheus의 "
        "한도). {finest}초 이상의 step을 쓰거나, step을 빼면 최대 {max_points}개 점을 받습니다"
    ),
    "monitoring.span.days": "{count:g}일",
    "monitoring.span.hours": "{count:g}시간",
    "monitoring.span.seconds": "{count:g}초",
    "monitoring.label_empty": "{field} 값이 비어 있습니다. {field} 이름을 주거나 {field}를 빼세요",
    "monitoring.label_too_long": "{field} 값이 {length}자입니다. 최대 {max}자까지 받습니다",
    # Times and durations as a caller writes them.
    "monitoring.time_invalid": (
        "{field} '{value}'은(는) 시각이 아닙니다. 시간대가 있는 RFC 3339(예: 2026-05-01T12:00:00Z)나 "
        "Unix 초(예: 1777636800)로 주세요"
    ),
    "monitoring.time_out_of_range": "{field} '{value}'이(가) 범위를 벗어났습니다",
    "monitoring.duration_invalid": (
        "{field} '{value}'은(는) 양의 기간이 아닙니다. 초(예: 30)나 단위(예: 30s, 5m, 1h)로 주세요"
    ),
    "monitoring.datetime_invalid": "{field} '{value}'은(는) 올바른 날짜와 시각이 아닙니다: {reason}",
}
