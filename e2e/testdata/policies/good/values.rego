package live_check_advice

import rego.v1

deny contains {"id": "acme_url_credentials", "level": "improvement", "message": "url.full carries credentials"} if {
	input.sample.attribute.name == "url.full"
	regex.match(`^[a-z]+://[^/@]+@`, input.sample.attribute.value)
}
